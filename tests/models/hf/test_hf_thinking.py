"""The thinking switch on the hf backend: `enable_thinking` in the chat template, per request.

The fast tests run HFModel over a stand-in worker holding a real (tiny, in-memory) tokenizer,
so the prompt is rendered by transformers' own apply_chat_template; the slow one runs the
embedded model with a Qwen3-style template file (tests/models/thinking_template.py).
"""

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rulebench.core.messages import GenerateConfig, Message, ReasoningOptions
from rulebench.models.base import BackendOptions, ChoiceScores
from rulebench.models.hf.backend import HFConfig, HFModel, free_hf_cache
from rulebench.models.hf.batching import GenerationJob, HFWorker, Job, ScoringJob
from rulebench.models.hf.loading import HFSource, LoadedModel
from rulebench.models.job_worker import JobWorker
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
SOURCE = HFSource("/nowhere", None, "tiny", "hf/tiny@rev")
PLAIN_TEMPLATE = (
    "{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}"
    "{% if add_generation_prompt %}[assistant]{% endif %}"
)


def thinking(switch: bool | None, max_tokens: int = 256) -> GenerateConfig:
    return GenerateConfig(max_tokens=max_tokens, reasoning=ReasoningOptions(thinking=switch))


def tiny_tokenizer(chat_template: str | None) -> Any:
    """A word-level tokenizer built in memory: transformers' real template code, no files."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.WordLevel({"[UNK]": 0, "</s>": 1}, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="</s>", unk_token="[UNK]")
    tokenizer.chat_template = chat_template
    return tokenizer


@dataclass
class ScriptedWorker:
    """Stands in for HFWorker: records jobs and answers each with the next scripted result."""

    loaded: LoadedModel
    replies: list[Generated] = field(default_factory=list)
    jobs: list[Job[Any]] = field(default_factory=list)
    closed: bool = False

    def submit(self, job: Job[Any]) -> None:
        self.jobs.append(job)
        if isinstance(job, ScoringJob):
            job.future.set_result(ChoiceScores([-1.0] * len(job.choices), 0))
            return
        reply = self.replies.pop(0) if self.replies else Generated("ok", 3, 1, "stop")
        job.future.set_result(reply)

    @property
    def prompts(self) -> list[str]:
        return [job.prompt for job in self.jobs]


def over(tokenizer: Any, *replies: Generated, **args: str) -> tuple[HFModel, ScriptedWorker]:
    loaded = LoadedModel(SimpleNamespace(dtype="torch.float32"), tokenizer, "cpu", frozenset())
    worker = ScriptedWorker(loaded, list(replies))
    model = HFModel(worker, SOURCE, HFConfig.model_validate(args))  # type: ignore[arg-type]
    return model, worker


async def test_the_switch_reaches_the_tokenizer_template_as_enable_thinking() -> None:
    model, worker = over(tiny_tokenizer(THINKING_TEMPLATE))
    for switch in (None, True, False):
        await model.generate(QUESTION, thinking(switch))
    unset, on, off = worker.prompts
    assert unset.endswith(HEADER)
    assert on == unset + ON_TAIL and off == unset + OFF_TAIL
    # Each rendering is what a job carries, with the config that keeps its batch apart.
    jobs = [job for job in worker.jobs if isinstance(job, GenerationJob)]
    assert [job.config.reasoning.thinking for job in jobs] == [None, True, False]


async def test_a_template_that_ignores_the_switch_renders_the_same_prompt() -> None:
    model, worker = over(tiny_tokenizer(PLAIN_TEMPLATE))
    replies = [await model.generate(QUESTION, thinking(switch)) for switch in (None, True, False)]
    assert len(set(worker.prompts)) == 1
    assert all(not reply.warnings for reply in replies)


async def test_a_template_file_reads_the_switch_too(tmp_path: Path) -> None:
    template = write_thinking_template(tmp_path)
    model, worker = over(tiny_tokenizer(PLAIN_TEMPLATE), chat_template=str(template))
    await model.generate(QUESTION, thinking(False))
    assert worker.prompts[0].endswith(HEADER + OFF_TAIL)


async def test_scoring_has_no_switch_and_renders_the_template_default() -> None:
    model, worker = over(tiny_tokenizer(THINKING_TEMPLATE))
    await model.generate(QUESTION, thinking(False))
    await model.score_choices(QUESTION, ["Four", "Five"])
    generated, scored = worker.prompts
    assert generated.endswith(OFF_TAIL) and scored.endswith(HEADER)


async def test_a_reply_after_an_opened_think_block_is_thinking_until_it_closes() -> None:
    closed = Generated("Two and two.\n</think>\n\nFour.", 10, 9, "stop")
    cut = Generated("Two and two make", 10, 4, "length")
    model, _ = over(tiny_tokenizer(THINKING_TEMPLATE), closed, cut)
    answered = await model.generate(QUESTION, thinking(True))
    assert (answered.reasoning, answered.text) == ("Two and two.", "Four.")
    unfinished = await model.generate(QUESTION, thinking(True, max_tokens=4))
    assert unfinished.is_reasoning_unfinished and unfinished.text == ""
    assert unfinished.reasoning == "Two and two make"


async def test_a_reply_after_a_closed_think_block_is_all_answer() -> None:
    model, _ = over(tiny_tokenizer(THINKING_TEMPLATE), Generated("Four.", 10, 2, "stop"))
    reply = await model.generate(QUESTION, thinking(False))
    assert (reply.text, reply.reasoning, reply.is_reasoning_unfinished) == ("Four.", "", False)


async def test_a_transcript_cannot_carry_the_switch_and_says_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    model, worker = over(tiny_tokenizer(THINKING_TEMPLATE), transcript="default")
    with caplog.at_level(logging.WARNING):
        unset = await model.generate(QUESTION, thinking(None))
        first = await model.generate(QUESTION, thinking(False))
        second = await model.generate(QUESTION, thinking(True))
    assert len(set(worker.prompts)) == 1  # the transcript renders the same, switch or not
    assert unset.warnings == ()
    assert first.warnings == second.warnings == (ThinkingSwitch.NOT_APPLIED,)
    logged = [r for r in caplog.records if "thinking switch" in r.getMessage()]
    assert len(logged) == 1 and "hf/tiny" in logged[0].getMessage()


# --- the embedded model ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def template_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_thinking_template(tmp_path_factory.mktemp("template"))


@pytest.fixture(scope="module")
def model(template_file: Path) -> Iterator[HFModel]:
    args = {"device": "cpu", "dtype": "float32", "chat_template": str(template_file)}
    yield HFModel.create(EMBEDDED_MODEL_NAME, BackendOptions(args=args))
    free_hf_cache()


def spy_on_results(monkeypatch: pytest.MonkeyPatch) -> list[Job[Any]]:
    """Record every job the hf worker is given; it still runs them as usual."""
    seen: list[Job[Any]] = []

    def submit(self: HFWorker, job: Job[Any]) -> None:
        seen.append(job)
        JobWorker.submit(self, job)

    monkeypatch.setattr(HFWorker, "submit", submit)
    return seen


@pytest.mark.slow
async def test_thinking_on_and_off_on_the_embedded_hf_model(
    model: HFModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    jobs = spy_on_results(monkeypatch)
    unset, on, off = [
        await model.generate(QUESTION, thinking(switch, max_tokens=12))
        for switch in (None, True, False)
    ]
    raw_on, raw_off = (job.future.result().text for job in jobs[1:])
    check_switched_replies([job.prompt for job in jobs], [unset, on, off], raw_on, raw_off)
