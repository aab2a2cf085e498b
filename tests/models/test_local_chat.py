"""The system-role fallback and stop strings both local backends share."""

import logging

import pytest

from rulebench.core.messages import Message
from rulebench.models.local_chat import (
    SystemFallback,
    cut_at_stop,
    resolve_system_role,
    template_takes_system,
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
