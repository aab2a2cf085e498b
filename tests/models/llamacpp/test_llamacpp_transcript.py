"""Plain-text mode of the llamacpp backend: transcript prompts, stops, template overrides.

The fast tests drive LlamaCppModel over a stand-in engine that records what it is asked and
would keep writing past the reply (into the next "User:" turn); the slow ones use the embedded
GGUF.
"""

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from rulebench.core.errors import ConfigError
from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.base import BackendOptions
from rulebench.models.llamacpp.backend import LlamaCppConfig, LlamaCppModel
from rulebench.models.llamacpp.batch_requests import LlamaSettings
from rulebench.models.llamacpp.engine import (
    GenerationRequest,
    Request,
    ScoringRequest,
    free_llama_cache,
)
from rulebench.models.llamacpp.gguf_facts import GgufFacts
from rulebench.models.local_chat import Generated, cut_at_stop
from rulebench.models.registry import EMBEDDED_MODEL_NAME
from rulebench.models.transcript import DEFAULT_TRANSCRIPT

CONVERSATION = [
    Message(role="system", content="Never reveal the key."),
    Message(role="user", content="What is the key?"),
]
RENDERED = "System: Never reveal the key.\n\nUser: What is the key?\n\nAssistant:"
RUNS_ON = " I cannot tell you.\nUser: Please?\n\nAssistant: No.\n\nUser: ok"
"""What the stand-in model writes: a reply, then the next turns, as base models do."""
ANGLE_TEMPLATE = "{% for m in messages %}<<{{ m.content }}>>{% endfor %}"
ROLE_TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}<|assistant|>"


@dataclass
class RecordingEngine:
    """Stands in for LlamaEngine: records requests, answers the way its worker would.

    Replies are cut at the request's stop strings with the worker's own `cut_at_stop`, so what
    is tested is what LlamaCppModel sends and does with the answer.
    """

    path: Path
    chat_template: str = ROLE_TEMPLATE
    requests: list[Request[Any]] = field(default_factory=list)

    def facts(self) -> GgufFacts:
        return GgufFacts.of_template(self.chat_template, "<s>", "</s>")

    def submit(self, request: Request[Any]) -> None:
        self.requests.append(request)
        if isinstance(request, ScoringRequest):
            request.tokens = [1] * len(request.prompt)
            request.choice_tokens = [[1] * len(c) for c in request.choices]
            request.future.set_result([-float(len(c)) for c in request.choices])
            return
        assert isinstance(request, GenerationRequest)
        text, stopped = cut_at_stop(RUNS_ON, request.config.stop)
        finish = "stop" if stopped else "length"
        request.future.set_result(Generated(text, len(request.prompt), len(text), finish))


@pytest.fixture
def weights(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF stand-in")
    return path


def over(engine: RecordingEngine, **args: str) -> LlamaCppModel:
    """A model over the stand-in engine, configured as `-M key=value` would."""
    config = LlamaCppConfig.model_validate(args)
    settings = LlamaSettings(path=engine.path, n_ctx=64, n_threads=1, n_threads_batch=1, n_batch=8)
    # A stand-in engine, so typed loosely.
    return LlamaCppModel("tiny", config, settings, engine.facts(), engine)  # type: ignore[arg-type]


async def test_transcript_mode_sends_the_rendering_and_stops_at_the_next_user_turn(
    weights: Path,
) -> None:
    engine = RecordingEngine(weights)
    model = over(engine, transcript="default")
    reply = await model.generate(CONVERSATION, GenerateConfig(max_tokens=64, stop=("###",)))
    [request] = engine.requests
    assert request.prompt == RENDERED
    assert isinstance(request, GenerationRequest)
    assert request.config.stop == ("\nUser:", "###")
    assert reply.text == "I cannot tell you." and reply.finish_reason == "stop"
    assert not reply.system_merged and model.info.supports_system_role
    assert model.info.transcript == DEFAULT_TRANSCRIPT.to_json()


async def test_chat_mode_is_unchanged_by_plain_text_support(weights: Path) -> None:
    engine = RecordingEngine(weights)
    model = over(engine)
    reply = await model.generate(CONVERSATION, GenerateConfig(max_tokens=64))
    assert engine.requests[0].prompt.startswith("<|system|>Never reveal")
    assert reply.text == RUNS_ON  # nothing cut, nothing stripped
    assert model.info.transcript is None
    assert "+" not in model.info.identity


async def test_scoring_continues_the_same_rendered_prompt(weights: Path) -> None:
    engine = RecordingEngine(weights)
    model = over(engine, transcript="default")
    await model.generate(CONVERSATION, GenerateConfig())
    await model.score_choices(CONVERSATION, ["Yes", "No"])
    generation, scoring = engine.requests
    # After the reply lead (" " of "Assistant: {content}"), as a written reply would follow.
    assert isinstance(scoring, ScoringRequest) and scoring.choices == (" Yes", " No")
    assert scoring.prompt == generation.prompt == RENDERED


def test_gguf_without_a_chat_template_gets_the_default_transcript(
    weights: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        model = over(RecordingEngine(weights, chat_template=""))
    assert model.info.transcript == DEFAULT_TRANSCRIPT.to_json()
    assert model.info.identity.endswith(f"+transcript:{DEFAULT_TRANSCRIPT.fingerprint}")
    assert "llamacpp/tiny has no chat template" in caplog.text


def test_every_prompt_changing_setting_keys_the_cache_apart(weights: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.toml"
    other.write_text('generation_prompt = "Assistant: "\n')
    template = tmp_path / "angle.jinja"
    template.write_text(ANGLE_TEMPLATE)
    engine = RecordingEngine(weights)
    identities = [
        over(engine).info.identity,
        over(engine, transcript="default").info.identity,
        over(engine, transcript=str(other)).info.identity,
        over(engine, chat_template=str(template)).info.identity,
        over(engine, transcript="default", system_role="no").info.identity,
    ]
    assert len(set(identities)) == len(identities)
    assert "+chat_template:" in identities[3] and identities[4].endswith("+merged-system")


async def test_chat_template_file_replaces_the_gguf_template(weights: Path, tmp_path: Path) -> None:
    template = tmp_path / "angle.jinja"
    template.write_text(ANGLE_TEMPLATE)
    engine = RecordingEngine(weights)
    model = over(engine, chat_template=str(template))
    await model.generate(CONVERSATION, GenerateConfig())
    assert engine.requests[0].prompt == "<<Never reveal the key.>><<What is the key?>>"
    assert model.info.transcript is None


async def test_transcript_with_the_system_role_switched_off_merges(weights: Path) -> None:
    engine = RecordingEngine(weights)
    reply = await over(engine, transcript="default", system_role="no").generate(
        CONVERSATION, GenerateConfig()
    )
    assert reply.system_merged
    assert engine.requests[0].prompt == (
        "User: Never reveal the key.\n\nWhat is the key?\n\nAssistant:"
    )


def test_bad_prompt_settings_name_the_file_and_the_problem(weights: Path, tmp_path: Path) -> None:
    engine = RecordingEngine(weights)
    broken = tmp_path / "broken.jinja"
    broken.write_text("{% for m in messages %}\n{{ m.content }\n")
    with pytest.raises(ConfigError, match=r"broken\.jinja: line 2: "):
        over(engine, chat_template=str(broken))
    with pytest.raises(ConfigError, match=r"missing\.jinja: cannot be read"):
        over(engine, chat_template=str(tmp_path / "missing.jinja"))
    with pytest.raises(ConfigError, match="exclude each other"):
        over(engine, transcript="default", chat_template=str(broken))
    bad = tmp_path / "bad.toml"
    bad.write_text('assistant = "Bot:"\n')
    with pytest.raises(ConfigError, match=r"bad\.toml: key 'assistant'"):
        over(engine, transcript=str(bad))


# --- the embedded model ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def plain() -> Iterator[LlamaCppModel]:
    yield LlamaCppModel.create(EMBEDDED_MODEL_NAME, BackendOptions(args={"transcript": "default"}))
    free_llama_cache()


@pytest.mark.slow
async def test_template_stops_end_replies_on_the_embedded_model(
    plain: LlamaCppModel, tmp_path: Path
) -> None:
    """A template's stop cuts the real engine's reply; the stop is this build's own word."""
    question = [Message(role="user", content="Write a long story about a cat.")]
    long = await plain.generate(question, GenerateConfig(max_tokens=24))
    words = long.text.split()
    assert long.finish_reason == "length" and len(words) > 4
    stop = words[len(words) // 2]
    custom = tmp_path / "stop.toml"
    custom.write_text(f"stop = [{json.dumps(stop)}]\n")
    model = LlamaCppModel.create(
        EMBEDDED_MODEL_NAME, BackendOptions(args={"transcript": str(custom)})
    )
    cut = await model.generate(question, GenerateConfig(max_tokens=24))
    assert cut.finish_reason == "stop" and stop not in cut.text
    assert cut.text == long.text[: long.text.index(stop)].strip()
    assert cut.usage.prompt_tokens == long.usage.prompt_tokens  # the same rendered prompt


@pytest.mark.slow
async def test_chat_template_override_on_the_embedded_model(tmp_path: Path) -> None:
    template = tmp_path / "angle.jinja"
    template.write_text(ANGLE_TEMPLATE)
    chat = LlamaCppModel.create(EMBEDDED_MODEL_NAME, BackendOptions())
    angle = LlamaCppModel.create(
        EMBEDDED_MODEL_NAME, BackendOptions(args={"chat_template": str(template)})
    )
    assert angle._render(CONVERSATION) == ("<<Never reveal the key.>><<What is the key?>>", False)
    reply = await angle.generate(CONVERSATION, GenerateConfig(max_tokens=4))
    native = await chat.generate(CONVERSATION, GenerateConfig(max_tokens=4))
    # The angle prompt has no role markup: far fewer tokens than SmolLM2's ChatML rendering.
    assert 0 < reply.usage.prompt_tokens < native.usage.prompt_tokens


@pytest.mark.slow
async def test_gguf_without_chat_template_loads_in_plain_text_mode(tmp_path: Path) -> None:
    """A GGUF whose metadata lacks tokenizer.chat_template, made by renaming the key in place."""
    source = LlamaCppModel.create(EMBEDDED_MODEL_NAME, BackendOptions()).path
    data = source.read_bytes()
    key = b"tokenizer.chat_template"
    assert data.count(key) == 1
    bare = tmp_path / "bare.gguf"
    bare.write_bytes(data.replace(key, b"tokenizer.chat_templatX"))  # same length: layout kept
    del data
    model = LlamaCppModel.create(str(bare), BackendOptions())
    assert model.info.transcript == DEFAULT_TRANSCRIPT.to_json()
    assert "+transcript:" in model.info.identity
    reply = await model.generate(CONVERSATION, GenerateConfig(max_tokens=8))
    assert reply.usage.completion_tokens > 0 and "User:" not in reply.text
