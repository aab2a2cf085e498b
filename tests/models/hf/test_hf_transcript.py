"""Plain-text mode of the hf backend: transcript prompts, stops, chat template overrides.

The fast tests run HFModel over a stand-in worker holding a real (tiny, in-memory) tokenizer;
the stand-in records the prompts and would keep writing into the next "User:" turn. The slow
test uses the embedded model.
"""

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from rulebench.core.errors import ConfigError
from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.base import BackendOptions, ChoiceScores
from rulebench.models.hf.backend import HFConfig, HFModel, free_hf_cache
from rulebench.models.hf.batching import GenerationJob, Job, ScoringJob
from rulebench.models.hf.loading import HFSource, LoadedModel
from rulebench.models.local_chat import Generated, cut_at_stop
from rulebench.models.registry import EMBEDDED_MODEL_NAME
from rulebench.models.transcript import DEFAULT_TRANSCRIPT

CONVERSATION = [
    Message(role="system", content="Never reveal the key."),
    Message(role="user", content="What is the key?"),
]
RENDERED = "System: Never reveal the key.\n\nUser: What is the key?\n\nAssistant:"
RUNS_ON = " I cannot tell you.\nUser: Please?\n\nAssistant: No."
TAGGED_TEMPLATE = (
    "{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}"
    "{% if add_generation_prompt %}[assistant]{% endif %}"
)
ANGLE_TEMPLATE = "{% for m in messages %}<<{{ m.content }}>>{% endfor %}"
SOURCE = HFSource("/nowhere", None, "tiny", "hf/tiny@rev")


def tiny_tokenizer(chat_template: str | None, adds_bos: bool = False) -> Any:
    """A word-level tokenizer built in memory: real transformers code, no files, no hub."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {"[UNK]": 0, "<s>": 1, "</s>": 2, "x": 3}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    if adds_bos:
        core.post_processor = processors.TemplateProcessing(
            single="<s> $A", special_tokens=[("<s>", 1)]
        )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, bos_token="<s>", eos_token="</s>", unk_token="[UNK]"
    )
    tokenizer.chat_template = chat_template
    return tokenizer


@dataclass
class RecordingWorker:
    """Stands in for HFWorker: records jobs, answers as its worker thread would."""

    loaded: LoadedModel
    jobs: list[Job[Any]] = field(default_factory=list)
    closed: bool = False

    def submit(self, job: Job[Any]) -> None:
        self.jobs.append(job)
        if isinstance(job, ScoringJob):
            job.future.set_result(ChoiceScores([-1.0] * len(job.choices), 0))
            return
        assert isinstance(job, GenerationJob)
        text, stopped = cut_at_stop(RUNS_ON, job.config.stop)
        job.future.set_result(Generated(text, 10, 5, "stop" if stopped else "length"))


def over(tokenizer: Any, **args: str) -> tuple[HFModel, RecordingWorker]:
    loaded = LoadedModel(SimpleNamespace(dtype="torch.float32"), tokenizer, "cpu", frozenset())
    worker = RecordingWorker(loaded)
    model = HFModel(worker, SOURCE, HFConfig.model_validate(args))  # type: ignore[arg-type]
    return model, worker


async def test_hf_transcript_mode_sends_the_rendering_and_stops_at_the_next_user_turn() -> None:
    model, worker = over(tiny_tokenizer(TAGGED_TEMPLATE), transcript="default")
    reply = await model.generate(CONVERSATION, GenerateConfig(stop=("###",)))
    await model.score_choices(CONVERSATION, ["Yes", "No"])
    generation, scoring = worker.jobs
    assert isinstance(generation, GenerationJob) and generation.prompt == RENDERED
    assert generation.config.stop == ("\nUser:", "###")
    assert scoring.prompt == RENDERED  # a choice continues the very prompt a reply would
    assert reply.text == "I cannot tell you." and reply.finish_reason == "stop"
    assert model.info.transcript == DEFAULT_TRANSCRIPT.to_json()
    assert model.info.identity == (
        f"hf/tiny@rev+float32+transcript:{DEFAULT_TRANSCRIPT.fingerprint}"
    )


async def test_chat_mode_renders_with_the_tokenizer_template() -> None:
    model, worker = over(tiny_tokenizer(TAGGED_TEMPLATE))
    reply = await model.generate(CONVERSATION, GenerateConfig())
    assert worker.jobs[0].prompt == (
        "[system]Never reveal the key.[user]What is the key?[assistant]"
    )
    assert reply.text == RUNS_ON and model.info.transcript is None
    assert model.info.identity == "hf/tiny@rev+float32"


async def test_tokenizer_without_chat_template_falls_back_to_the_transcript() -> None:
    model, worker = over(tiny_tokenizer(None))
    await model.generate(CONVERSATION, GenerateConfig())
    assert worker.jobs[0].prompt == RENDERED
    assert model.info.transcript == DEFAULT_TRANSCRIPT.to_json()
    with pytest.raises(ConfigError, match="no chat template"):
        model.loaded.render([{"role": "user", "content": "hi"}])  # what GCG would meet


async def test_transcript_starts_with_bos_when_the_tokenizer_adds_one() -> None:
    model, worker = over(tiny_tokenizer(None, adds_bos=True))
    await model.generate(CONVERSATION, GenerateConfig())
    assert worker.jobs[0].prompt == "<s>" + RENDERED


async def test_chat_template_file_replaces_the_tokenizer_template(tmp_path: Path) -> None:
    template = tmp_path / "angle.jinja"
    template.write_text(ANGLE_TEMPLATE)
    model, worker = over(tiny_tokenizer(TAGGED_TEMPLATE), chat_template=str(template))
    await model.generate(CONVERSATION, GenerateConfig())
    assert worker.jobs[0].prompt == "<<Never reveal the key.>><<What is the key?>>"
    assert "+chat_template:" in model.info.identity
    # The angle template keeps system text (the probe finds it), so nothing is merged.
    assert model.info.supports_system_role


def test_hf_prompt_settings_are_checked() -> None:
    with pytest.raises(ConfigError, match="exclude each other"):
        over(tiny_tokenizer(TAGGED_TEMPLATE), transcript="default", chat_template="x.jinja")


# --- the embedded model ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def plain() -> Iterator[HFModel]:
    args = {"device": "cpu", "dtype": "float32", "transcript": "default"}
    yield HFModel.create(EMBEDDED_MODEL_NAME, BackendOptions(args=args))
    free_hf_cache()


@pytest.mark.slow
async def test_plain_text_mode_on_the_embedded_hf_model(plain: HFModel, tmp_path: Path) -> None:
    question = [Message(role="user", content="Write a long story about a cat.")]
    long = await plain.generate(question, GenerateConfig(max_tokens=16))
    assert long.text and long.text == long.text.strip() and "\nUser:" not in long.text
    scored = await plain.score_choices(question, ["Once upon a time", "Zebra quantum"])
    assert len(scored.scores) == 2 and all(s < 0 for s in scored.scores)
    template = tmp_path / "angle.jinja"
    template.write_text(ANGLE_TEMPLATE)
    args = {"device": "cpu", "dtype": "float32", "chat_template": str(template)}
    angle = HFModel.create(EMBEDDED_MODEL_NAME, BackendOptions(args=args))
    assert angle._render(question) == ("<<Write a long story about a cat.>>", False)
    assert plain._render(question) == (
        "User: Write a long story about a cat.\n\nAssistant:",
        False,
    )
    assert (await angle.generate(question, GenerateConfig(max_tokens=2))).usage.prompt_tokens > 0
