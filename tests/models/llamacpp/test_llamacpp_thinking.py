"""The thinking switch on the llamacpp backend: `enable_thinking` in the chat template.

The fast tests drive LlamaCppModel over a stand-in engine, with prompts rendered by llama.cpp's
own Jinja2 formatter; the slow ones run the embedded GGUF with a Qwen3-style template file
(tests/models/thinking_template.py), through the real engine and its KV prefix cache.
"""

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rulebench.core.messages import GenerateConfig, Message, ReasoningOptions
from rulebench.models.base import BackendOptions
from rulebench.models.llamacpp.backend import LlamaCppConfig, LlamaCppModel
from rulebench.models.llamacpp.batch_requests import LlamaSettings
from rulebench.models.llamacpp.engine import (
    LlamaEngine,
    Request,
    ScoringRequest,
    free_llama_cache,
)
from rulebench.models.llamacpp.gguf_facts import GgufFacts, chat_renderer
from rulebench.models.local_chat import Generated, ThinkingSwitch
from rulebench.models.registry import EMBEDDED_MODEL_NAME

from tests.models.thinking_template import (
    HEADER,
    OFF_TAIL,
    ON_TAIL,
    THINKING_TEMPLATE,
    check_switched_replies,
    write_thinking_template,
)

QUESTION = [Message(role="user", content="What is two plus two?")]
PLAIN_TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}<|assistant|>"


def thinking(switch: bool | None, max_tokens: int = 64) -> GenerateConfig:
    return GenerateConfig(max_tokens=max_tokens, reasoning=ReasoningOptions(thinking=switch))


@dataclass
class ScriptedEngine:
    """Stands in for LlamaEngine: records requests, answers with the next scripted result."""

    path: Path
    chat_template: str = THINKING_TEMPLATE
    replies: list[Generated] = field(default_factory=list)
    requests: list[Request[Any]] = field(default_factory=list)

    def submit(self, request: Request[Any]) -> None:
        self.requests.append(request)
        if isinstance(request, ScoringRequest):
            request.choice_tokens = [[1] for _ in request.choices]
            request.future.set_result([-1.0] * len(request.choices))
            return
        reply = self.replies.pop(0) if self.replies else Generated("ok", 3, 1, "stop")
        request.future.set_result(reply)

    @property
    def prompts(self) -> list[str]:
        return [request.prompt for request in self.requests]


@pytest.fixture
def weights(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF stand-in")
    return path


def over(engine: ScriptedEngine, **args: str) -> LlamaCppModel:
    config = LlamaCppConfig.model_validate(args)
    settings = LlamaSettings(path=engine.path, n_ctx=64, n_threads=1, n_threads_batch=1, n_batch=8)
    facts = GgufFacts.of_template(engine.chat_template, "<s>", "</s>")
    # A stand-in engine, so typed loosely.
    return LlamaCppModel("tiny", config, settings, facts, engine)  # type: ignore[arg-type]


def test_the_renderer_passes_variables_to_llama_cpps_formatter() -> None:
    render = chat_renderer(THINKING_TEMPLATE, "<s>", "</s>")
    messages = [{"role": "user", "content": "Hi"}]
    assert render(messages) == render(messages, {}) == "<|im_start|>user\nHi<|im_end|>\n" + HEADER
    assert render(messages, {"enable_thinking": True}) == render(messages) + ON_TAIL
    assert render(messages, {"enable_thinking": False}) == render(messages) + OFF_TAIL


async def test_the_switch_reaches_the_gguf_template_per_request(weights: Path) -> None:
    engine = ScriptedEngine(weights)
    model = over(engine)
    for switch in (None, True, False):
        await model.generate(QUESTION, thinking(switch))
    await model.score_choices(QUESTION, ["Four"])
    unset, on, off, scored = engine.prompts
    assert on == unset + ON_TAIL and off == unset + OFF_TAIL
    assert scored == unset  # scoring has no switch: the template's default
    assert "+" not in model.info.identity  # the switch keys the cache through the config


async def test_a_template_file_reads_the_switch(weights: Path, tmp_path: Path) -> None:
    engine = ScriptedEngine(weights, chat_template=PLAIN_TEMPLATE)
    model = over(engine, chat_template=str(write_thinking_template(tmp_path)))
    await model.generate(QUESTION, thinking(True))
    assert engine.prompts[0].endswith(HEADER + ON_TAIL)


async def test_a_template_that_ignores_the_switch_renders_the_same_prompt(weights: Path) -> None:
    engine = ScriptedEngine(weights, chat_template=PLAIN_TEMPLATE)
    model = over(engine)
    replies = [await model.generate(QUESTION, thinking(switch)) for switch in (None, True, False)]
    assert len(set(engine.prompts)) == 1
    assert all(not reply.warnings for reply in replies)


async def test_an_opened_think_block_makes_the_reply_thinking_until_it_closes(
    weights: Path,
) -> None:
    replies = [Generated("Sum it.</think>Four.", 9, 6, "stop"), Generated("Sum", 9, 1, "length")]
    model = over(ScriptedEngine(weights, replies=replies))
    answered = await model.generate(QUESTION, thinking(True))
    assert (answered.reasoning, answered.text) == ("Sum it.", "Four.")
    cut = await model.generate(QUESTION, thinking(True, max_tokens=1))
    assert (cut.reasoning, cut.text, cut.is_reasoning_unfinished) == ("Sum", "", True)


async def test_a_transcript_records_the_switch_it_cannot_carry(
    weights: Path, caplog: pytest.LogCaptureFixture
) -> None:
    engine = ScriptedEngine(weights)
    model = over(engine, transcript="default")
    with caplog.at_level(logging.WARNING):
        replies = [await model.generate(QUESTION, thinking(s)) for s in (None, True, False)]
    assert len(set(engine.prompts)) == 1
    assert [reply.warnings for reply in replies] == [
        (),
        (ThinkingSwitch.NOT_APPLIED,),
        (ThinkingSwitch.NOT_APPLIED,),
    ]
    logged = [r for r in caplog.records if "thinking switch" in r.getMessage()]
    assert len(logged) == 1 and "llamacpp/tiny" in logged[0].getMessage()


# --- the embedded model ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaCppModel]:
    template = write_thinking_template(tmp_path_factory.mktemp("template"))
    args = {"chat_template": str(template)}
    yield LlamaCppModel.create(EMBEDDED_MODEL_NAME, BackendOptions(args=args))
    free_llama_cache()


def spy_on_requests(monkeypatch: pytest.MonkeyPatch) -> list[Request[Any]]:
    """Record every request the engine is given; it still runs them as usual."""
    seen: list[Request[Any]] = []
    original = LlamaEngine.submit

    def submit(self: LlamaEngine, request: Request[Any]) -> None:
        seen.append(request)
        original(self, request)

    monkeypatch.setattr(LlamaEngine, "submit", submit)
    return seen


@pytest.mark.slow
async def test_thinking_on_and_off_on_the_embedded_gguf(
    model: LlamaCppModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    requests = spy_on_requests(monkeypatch)
    unset, on, off = [
        await model.generate(QUESTION, thinking(switch, max_tokens=12))
        for switch in (None, True, False)
    ]
    raw_on, raw_off = (request.future.result().text for request in requests[1:])
    prompts = [request.prompt for request in requests]
    check_switched_replies(prompts, [unset, on, off], raw_on, raw_off)


@pytest.mark.slow
async def test_the_prefix_cache_keeps_switched_prompts_apart(model: LlamaCppModel) -> None:
    """Prompts that differ only in the switch share cells up to the tail, never past it."""
    off = await model.generate(QUESTION, thinking(False, max_tokens=12))
    before = model.stats.evaluated_prompt_tokens
    on = await model.generate(QUESTION, thinking(True, max_tokens=12))
    on_evaluated = model.stats.evaluated_prompt_tokens - before
    again = await model.generate(QUESTION, thinking(False, max_tokens=12))
    # The on prompt reused the shared head and evaluated its own tail; greedy replies to the
    # off prompt are the same whether its cells were evaluated or restored after the on one.
    assert 0 < on_evaluated < on.usage.prompt_tokens
    assert (again.text, again.reasoning) == (off.text, off.reasoning)
    assert again.usage == off.usage
