"""The system-role fallback, stop strings and thinking split both local backends share."""

import logging

import pytest

from rulebench.core.messages import Message
from rulebench.core.reasoning import ReasoningTags
from rulebench.models.local_chat import (
    Generated,
    SystemFallback,
    cut_at_stop,
    resolve_system_role,
    template_takes_system,
    to_completion,
)


def keeps_everything(messages: list[dict[str, str]]) -> str:
    return "".join(f"<{m['role']}>{m['content']}" for m in messages)


def drops_system(messages: list[dict[str, str]]) -> str:
    return "".join(m["content"] for m in messages if m["role"] != "system")


def refuses_system(messages: list[dict[str, str]]) -> str:
    if any(m["role"] == "system" for m in messages):
        raise ValueError("System role not supported")
    return keeps_everything(messages)


def test_template_probe_detects_dropped_and_refused_system_text() -> None:
    assert template_takes_system(keeps_everything)
    assert not template_takes_system(drops_system)
    assert not template_takes_system(refuses_system)


def test_setting_overrules_the_template() -> None:
    assert resolve_system_role("auto", keeps_everything)
    assert not resolve_system_role("no", keeps_everything)
    assert resolve_system_role("yes", refuses_system)


def test_fallback_merges_and_warns_once(caplog: pytest.LogCaptureFixture) -> None:
    conversation = [Message(role="system", content="Be brief."), Message(role="user", content="Hi")]
    fallback = SystemFallback("hf/tiny", supports_system_role=False)
    with caplog.at_level(logging.WARNING):
        sent, merged = fallback.apply(conversation)
        fallback.apply(conversation)
    assert merged and sent == [Message(role="user", content="Be brief.\n\nHi")]
    assert len([r for r in caplog.records if "hf/tiny" in r.getMessage()]) == 1
    assert SystemFallback("m", True).apply(conversation) == (conversation, False)
    no_system = conversation[1:]
    assert SystemFallback("m", False).apply(no_system) == (no_system, False)


def test_cut_at_the_earliest_stop() -> None:
    assert cut_at_stop("a. b! c", (".", "!")) == ("a", True)
    assert cut_at_stop("a b", ("!", "")) == ("a b", False)
    assert cut_at_stop("abc", ()) == ("abc", False)


def test_generated_text_is_split_into_thinking_and_answer() -> None:
    done = to_completion(Generated("<think>maybe (A)</think>\n(B)", 3, 9, "stop"), 0.0, False)
    assert (done.text, done.reasoning, done.is_reasoning_unfinished) == ("(B)", "maybe (A)", False)
    cut = to_completion(Generated("<think>maybe (A), but", 3, 9, "length"), 0.0, False)
    assert (cut.text, cut.reasoning, cut.is_reasoning_unfinished) == ("", "maybe (A), but", True)
    tags = ReasoningTags(start="[THINK]", end="[/THINK]")
    own = to_completion(Generated("[THINK]hm[/THINK]ok", 3, 9, "stop"), 0.0, False, tags)
    assert (own.text, own.reasoning) == ("ok", "hm")
    plain = to_completion(Generated(" Paris\n", 3, 2, "stop"), 0.0, False)
    assert (plain.text, plain.reasoning) == (" Paris\n", "")
