"""The llamacpp backend on the embedded SmolLM2-135M GGUF (slow tests) and its settings (fast)."""

import asyncio
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError, ModelError
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.core.reasoning import DEFAULT_TAGS, ReasoningTags, split_completion
from rulebench.models import local_chat
from rulebench.models.base import BackendOptions, ChoiceScorer, Model
from rulebench.models.llamacpp.backend import LlamaCppModel, resolve_gguf
from rulebench.models.llamacpp.decode import chunk_bounds, common_prefix_length
from rulebench.models.llamacpp.engine import free_llama_cache
from rulebench.models.registry import EMBEDDED_MODEL_NAME, create_model

GREEDY = GenerateConfig(max_tokens=12)
LONG_REQUEST = "Write a long, detailed story about a cat who travels around the world."


def ask(question: str, system: str | None = None) -> list[Message]:
    head = [Message(role="system", content=system)] if system else []
    return [*head, Message(role="user", content=question)]


def rules(topic: str, count: int = 14) -> str:
    """A rule set of roughly 25 tokens per rule, different per topic from the first token on."""
    lines = [
        f"{topic} rule {i}: if a person holds {topic} permit {i} and lives in district {i + 3}, "
        f"they may enter zone {i * 7} only on day {i % 5 + 1} of the week."
        for i in range(count)
    ]
    return "\n".join(lines)


def embedded(**args: str) -> LlamaCppModel:
    return LlamaCppModel.create(EMBEDDED_MODEL_NAME, BackendOptions(args=args))


# --- no model needed ---------------------------------------------------------------------------


def test_embedded_name_is_case_insensitive() -> None:
    path, name = resolve_gguf("smollm2-135m-INSTRUCT")
    assert path.suffix == ".gguf" and name == EMBEDDED_MODEL_NAME


def test_missing_gguf_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.gguf"
    with pytest.raises(ConfigError, match=r"nowhere\.gguf"):
        create_model(f"llamacpp/{missing}")


def test_name_that_is_no_gguf_is_explained() -> None:
    with pytest.raises(ConfigError, match=EMBEDDED_MODEL_NAME):
        resolve_gguf("gpt-4o")


@pytest.mark.parametrize(
    ("key", "value"),
    [("n_ctx", "lots"), ("n_threads", "0"), ("system_role", "maybe"), ("prefix_reuse", "perhaps")],
)
def test_bad_setting_names_its_key(key: str, value: str) -> None:
    with pytest.raises(ConfigError, match=f"-M {key}"):
        embedded(**{key: value})


def test_unknown_setting_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"known settings: .*n_threads_batch"):
        embedded(threads="2")


def test_common_prefix_length() -> None:
    assert common_prefix_length([1, 2, 3], [1, 2, 4, 5]) == 2
    assert common_prefix_length([1, 2], [1, 2, 3]) == 2
    assert common_prefix_length([], [1]) == 0
    assert common_prefix_length([9], [1]) == 0


def test_prompt_chunks_never_hold_a_single_token() -> None:
    """llama.cpp decodes one token by another kernel; a lone token would change the logits."""
    for length in range(2, 40):
        bounds = chunk_bounds(length, 8)
        assert bounds[0][0] == 0 and bounds[-1][1] == length
        assert all(2 <= end - start <= 8 for start, end in bounds)
        assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds))


# --- the embedded model ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model() -> Iterator[LlamaCppModel]:
    yield embedded()
    free_llama_cache()


@pytest.mark.slow
def test_meets_the_protocols(model: LlamaCppModel) -> None:
    assert isinstance(model, Model) and isinstance(model, ChoiceScorer)
    info = model.info
    assert info.provider == "llamacpp" and info.name == EMBEDDED_MODEL_NAME
    assert info.identity.startswith("llamacpp/SmolLM2-135M-Instruct")
    assert "@sha256:" in info.identity
    assert info.supports_system_role  # SmolLM2's template has a system turn


@pytest.mark.slow
async def test_the_generated_text_goes_through_the_thinking_split(
    model: LlamaCppModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Completion] = []

    def spy(completion: Completion, tags: ReasoningTags = DEFAULT_TAGS) -> Completion:
        seen.append(completion)
        return split_completion(completion, tags)

    monkeypatch.setattr(local_chat, "split_completion", spy)
    reply = await model.generate(ask("Say hello."), GREEDY)
    # Whatever the model says: the completion is the split of exactly what it generated.
    [raw] = seen
    assert raw.reasoning == "" and raw.finish_reason == reply.finish_reason
    assert reply == split_completion(raw)


@pytest.mark.slow
async def test_greedy_is_deterministic_and_bounded(model: LlamaCppModel) -> None:
    question = ask("What is the capital of France? Answer with one word.")
    first = await model.generate(question, GREEDY)
    again = await model.generate(question, GREEDY)
    # Only what holds for any llama.cpp build: another CPU's build may word the reply differently.
    assert first.text.strip() and first.text == again.text
    assert 0 < first.usage.completion_tokens <= GREEDY.max_tokens
    assert first.finish_reason in ("stop", "length") and first.usage.prompt_tokens > 10


@pytest.mark.slow
async def test_max_tokens_and_stop_strings(model: LlamaCppModel) -> None:
    # A request for a long story runs past 16 tokens on any build; the stop string is taken
    # from this build's own reply, so nothing depends on the model's exact wording.
    long = await model.generate(ask(LONG_REQUEST), GenerateConfig(max_tokens=16))
    assert long.finish_reason == "length" and long.usage.completion_tokens == 16
    short = await model.generate(ask(LONG_REQUEST), GenerateConfig(max_tokens=4))
    assert short.finish_reason == "length" and short.usage.completion_tokens == 4
    assert long.text.startswith(short.text)
    words = long.text.split()
    stop = words[len(words) // 2]
    stopped = await model.generate(ask(LONG_REQUEST), GenerateConfig(max_tokens=16, stop=(stop,)))
    assert stopped.finish_reason == "stop" and stop not in stopped.text
    assert stopped.text == long.text[: long.text.index(stop)]
    assert stopped.usage.completion_tokens < 16


@pytest.mark.slow
async def test_concurrent_requests_get_their_own_replies(model: LlamaCppModel) -> None:
    """Same replies whatever ran before: the cache holds other prompts, or this one's reply."""
    questions = ["What is the capital of France?", "What is 2+2?", "Say hello.", "Name a color."]
    sequential = [(await model.generate(ask(q), GREEDY)).text for q in questions]
    together = await asyncio.gather(*(model.generate(ask(q), GREEDY) for q in questions))
    assert [c.text for c in together] == sequential


@pytest.mark.slow
async def test_shared_prefix_is_evaluated_once() -> None:
    reuse, fresh = embedded(), embedded(prefix_reuse="false")
    system = rules("harbour")
    await reuse.generate(ask("May I enter zone 7?", system), GREEDY)
    before = reuse.stats.evaluated_prompt_tokens
    second = await reuse.generate(ask("Which permit opens zone 14?", system), GREEDY)
    evaluated = reuse.stats.evaluated_prompt_tokens - before
    assert second.usage.prompt_tokens > 500  # 14 rules: about 580 tokens
    assert evaluated < second.usage.prompt_tokens * 0.1
    third = await fresh.generate(ask("Which permit opens zone 14?", system), GREEDY)
    assert fresh.stats.evaluated_prompt_tokens == third.usage.prompt_tokens
    assert third.text == second.text


@pytest.mark.slow
async def test_waiting_request_sharing_the_cache_goes_first() -> None:
    """Of two waiting requests, the one sharing the cached prefix runs first, not the older."""
    await embedded().generate(ask("Say hello."), GREEDY)  # cache holds an unrelated prompt
    first, other, same = embedded(), embedded(), embedded()
    airport, library = rules("airport"), rules("library")
    await asyncio.gather(
        first.generate(ask("May I enter zone 7?", airport), GREEDY),
        other.generate(ask("May I enter zone 7?", library), GREEDY),
        same.generate(ask("Which permit opens zone 14?", airport), GREEDY),
    )
    assert other.stats.evaluated_prompt_tokens > other.stats.prompt_tokens * 0.8
    assert same.stats.evaluated_prompt_tokens < same.stats.prompt_tokens * 0.1


@pytest.mark.slow
async def test_scores_prefer_the_right_answer(model: LlamaCppModel) -> None:
    question = ask("What is the capital of France?")
    scored = await model.score_choices(
        question,
        [
            "The capital of France is Paris.",
            "The capital of France is Berlin.",
            "Banana purple seventeen.",
            "The capital",
        ],
    )
    right, wrong, nonsense, start = scored.scores
    assert right > wrong > nonsense
    # A longer reply extending a shorter one cannot be likelier (log-probs are <= 0).
    assert right < start + 1e-3
    paris, banana = (await model.score_choices(question, ["Paris", "Banana"])).scores
    assert paris > banana
    assert (await model.score_choices(question, ["Paris", "Banana"])).scores == [paris, banana]


@pytest.mark.slow
async def test_scoring_counts_the_prompt_once_per_choice(model: LlamaCppModel) -> None:
    question = ask("What is the capital of France?")
    prompt = (await model.generate(question, GenerateConfig(max_tokens=1))).usage.prompt_tokens
    one = await model.score_choices(question, ["Paris"])
    two = await model.score_choices(question, ["Paris", "Banana split"])
    paris = one.tokens - prompt
    assert 1 <= paris <= len("Paris")
    assert 1 <= two.tokens - 2 * prompt - paris <= len("Banana split")


@pytest.mark.slow
async def test_scoring_reuses_the_prompt_prefix(model: LlamaCppModel) -> None:
    question = ask("Which permit opens zone 14?", rules("museum"))
    await model.score_choices(question, ["Permit 2.", "Permit 9."])
    before = model.stats.evaluated_prompt_tokens
    await model.score_choices(question, ["Permit 2.", "None of them."])
    assert model.stats.evaluated_prompt_tokens - before == 2  # the last two, see llamacpp_decode


@pytest.mark.slow
async def test_system_role_no_merges_into_the_user_turn() -> None:
    merging, plain = embedded(system_role="no"), embedded()
    assert not merging.info.supports_system_role
    assert merging.info.identity != plain.info.identity
    merged = await merging.generate(ask("Hi", system="Answer in French."), GREEDY)
    assert merged.system_merged
    by_hand = await plain.generate(ask("Answer in French.\n\nHi"), GREEDY)
    assert not by_hand.system_merged
    assert merged.usage.prompt_tokens == by_hand.usage.prompt_tokens
    assert merged.text == by_hand.text


@pytest.mark.slow
async def test_a_failed_request_leaves_the_model_working(model: LlamaCppModel) -> None:
    with pytest.raises(ModelError, match="tokenizes to nothing"):
        await model.score_choices(ask("Pick one."), ["yes", ""])
    small = embedded(n_ctx="64")
    with pytest.raises(ModelError, match="n_ctx"):
        await small.generate(ask(rules("ferry", 3)), GREEDY)
    assert (await small.generate(ask("Say hello."), GenerateConfig(max_tokens=4))).text
    assert (await model.generate(ask("Say hello."), GenerateConfig(max_tokens=4))).text
