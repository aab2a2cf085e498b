"""The hf backend on the embedded GGUF (slow: ~40 s to load) and its settings (fast, no model)."""

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError, ModelError
from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.base import BackendOptions, ChoiceScorer, Model
from rulebench.models.hf.backend import HFModel, free_hf_cache
from rulebench.models.hf.loading import pick_device, resolve_source
from rulebench.models.registry import EMBEDDED_MODEL_NAME, create_model

GREEDY = GenerateConfig(max_tokens=12)


def ask(question: str, system: str | None = None) -> list[Message]:
    head = [Message(role="system", content=system)] if system else []
    return [*head, Message(role="user", content=question)]


def embedded(**args: str) -> HFModel:
    return HFModel.create(EMBEDDED_MODEL_NAME, BackendOptions(args=args))


# --- no model needed ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value"),
    [("device", "tpu"), ("dtype", "int8"), ("max_batch_size", "0"), ("system_role", "maybe")],
)
def test_bad_setting_names_its_key(key: str, value: str) -> None:
    with pytest.raises(ConfigError, match=f"-M {key}"):
        embedded(**{key: value})


def test_hub_name_not_in_the_local_cache_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ConfigError, match="local Hugging Face cache"):
        create_model("hf/rulebench-tests/no-such-model")


def test_folder_without_weights_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no weight files"):
        resolve_source(str(tmp_path))


def test_embedded_name_resolves_to_the_gguf_case_insensitively() -> None:
    source = resolve_source("smollm2-135m-instruct")
    assert source.gguf_file is not None and source.gguf_file.endswith(".gguf")
    assert source.display_name == EMBEDDED_MODEL_NAME
    assert source.identity.startswith(f"hf/{source.gguf_file}@sha256:")


def test_missing_device_is_refused() -> None:
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(ConfigError, match="device=cuda"):
        pick_device("cuda")
    assert pick_device("auto") in ("cpu", "mps")


# --- the embedded model ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model() -> Iterator[HFModel]:
    yield embedded(device="cpu", dtype="float32")
    free_hf_cache()


@pytest.mark.slow
def test_meets_the_protocols(model: HFModel) -> None:
    assert isinstance(model, Model) and isinstance(model, ChoiceScorer)
    assert model.info.provider == "hf" and model.info.name == EMBEDDED_MODEL_NAME
    assert model.info.supports_system_role
    assert model.info.identity.startswith("hf/SmolLM2-135M-Instruct")
    assert model.info.identity.endswith("+float32")  # the dtype changes replies, so the cache key


@pytest.mark.slow
async def test_greedy_is_deterministic_and_bounded(model: HFModel) -> None:
    question = ask("What is the capital of France? Answer with one word.")
    first = await model.generate(question, GREEDY)
    again = await model.generate(question, GREEDY)
    # Only what holds for any build: another machine may word the greedy reply differently.
    assert first.text.strip() and first.text == again.text
    assert first.finish_reason in ("stop", "length") and 0 < first.usage.completion_tokens <= 12


@pytest.mark.slow
async def test_max_tokens_and_stop_strings(model: HFModel) -> None:
    # A long story runs past 12 tokens on any build; the stop string comes from this reply.
    request = "Write a long, detailed story about a cat who travels around the world."
    long = await model.generate(ask(request), GenerateConfig(max_tokens=12))
    assert long.finish_reason == "length" and long.usage.completion_tokens == 12
    words = long.text.split()
    stop = words[len(words) // 2]
    stopped = await model.generate(ask(request), GenerateConfig(max_tokens=12, stop=(stop,)))
    assert stopped.finish_reason == "stop"
    assert stopped.text == long.text[: long.text.index(stop)]
    assert stopped.usage.completion_tokens < 12


@pytest.mark.slow
async def test_requests_arriving_together_are_batched(model: HFModel) -> None:
    questions = ["What is the capital of France?", "What is 2+2?", "Say hello.", "Name a color."]
    alone = [await model.generate(ask(q), GREEDY) for q in questions]
    runs = len(model.stats.batch_sizes)
    together = await asyncio.gather(*(model.generate(ask(q), GREEDY) for q in questions))
    assert max(model.stats.batch_sizes[runs:]) > 1
    for single, batched in zip(alone, together, strict=True):
        # float32 greedy: padding may shift the last bits of a logit, never the first words.
        assert batched.text.split()[:5] == single.text.split()[:5]
        assert batched.usage.prompt_tokens == single.usage.prompt_tokens


@pytest.mark.slow
async def test_sampling_is_seeded(model: HFModel) -> None:
    sampled = GenerateConfig(max_tokens=8, temperature=1.0, seed=7)
    first = await model.generate(ask("Tell me a story."), sampled)
    assert first.text == (await model.generate(ask("Tell me a story."), sampled)).text


@pytest.mark.slow
async def test_scores_prefer_the_right_answer(model: HFModel) -> None:
    question = ask("What is the capital of France?")
    choices = [
        "The capital of France is Paris.",
        "The capital of France is Berlin.",
        "Banana purple seventeen.",
    ]
    scored = await model.score_choices(question, choices)
    right, wrong, nonsense = scored.scores
    assert right > wrong > nonsense
    paris, banana = (await model.score_choices(question, ["Paris", "Banana"])).scores
    assert paris > banana
    prompt = (await model.generate(question, GenerateConfig(max_tokens=1))).usage.prompt_tokens
    # The prompt once per choice, then each choice's own tokens (at least one each).
    assert 3 * prompt + 3 <= scored.tokens <= 3 * prompt + len("".join(choices))


@pytest.mark.slow
async def test_system_role_no_merges_into_the_user_turn(model: HFModel) -> None:
    merging = embedded(device="cpu", dtype="float32", system_role="no")
    assert not merging.info.supports_system_role
    merged = await merging.generate(ask("Hi", system="Answer in French."), GREEDY)
    by_hand = await model.generate(ask("Answer in French.\n\nHi"), GREEDY)
    assert merged.system_merged and not by_hand.system_merged
    assert merged.usage.prompt_tokens == by_hand.usage.prompt_tokens
    assert merged.text == by_hand.text


@pytest.mark.slow
async def test_a_failed_request_leaves_the_model_working(model: HFModel) -> None:
    with pytest.raises(ModelError, match="tokenizes to nothing"):
        await model.score_choices(ask("Pick one."), ["yes", ""])
    assert (await model.generate(ask("Say hello."), GenerateConfig(max_tokens=4))).text
