"""The batched llamacpp engine on the embedded model: replies independent of what shares a batch.

These compare the model with itself on this machine, so they hold on any llama.cpp build that
keeps the properties llamacpp_batch relies on; nothing depends on the model's wording.
"""

import asyncio
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from rulebench.core.errors import ModelError
from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.base import BackendOptions
from rulebench.models.embedded import embedded_gguf_path
from rulebench.models.llamacpp.backend import LlamaCppModel
from rulebench.models.llamacpp.batch import BatchContext
from rulebench.models.llamacpp.batch_requests import LlamaSettings
from rulebench.models.llamacpp.engine import free_llama_cache
from rulebench.models.llamacpp.layout import Layout
from rulebench.models.registry import EMBEDDED_MODEL_NAME

pytestmark = pytest.mark.slow

QUESTIONS = [
    "What is the capital of France?",
    "Write a short poem about the sea.",
    "List three prime numbers.",
    "Say hello.",
    "Explain why the sky is blue in two sentences.",
    "Name a color.",
]
LONG_RULES = "\n".join(
    f"Rule {i}: a visitor holding ferry pass {i} may board boat {i * 3} on day {i % 7 + 1}."
    for i in range(20)
)


def ask(question: str, system: str | None = None) -> list[Message]:
    head = [Message(role="system", content=system)] if system else []
    return [*head, Message(role="user", content=question)]


def embedded(**args: str) -> LlamaCppModel:
    return LlamaCppModel.create(EMBEDDED_MODEL_NAME, BackendOptions(args={"n_ctx": "1024", **args}))


@pytest.fixture(autouse=True, scope="module")
def free_models() -> Iterator[None]:
    yield
    free_llama_cache()


async def replies(model: LlamaCppModel, configs: list[GenerateConfig], together: bool) -> list[str]:
    """Replies to QUESTIONS, one config each, sent one by one or all at once."""
    if together:
        done = await asyncio.gather(
            *(model.generate(ask(q), c) for q, c in zip(QUESTIONS, configs, strict=True))
        )
        return [c.text for c in done]
    return [(await model.generate(ask(q), c)).text for q, c in zip(QUESTIONS, configs, strict=True)]


async def test_a_request_gets_the_same_greedy_reply_alone_or_batched() -> None:
    # Different lengths make replies end at different steps, so slots free up and are compacted.
    configs = [GenerateConfig(max_tokens=n) for n in (24, 9, 30, 5, 17, 12)]
    alone = await replies(embedded(lanes="1", n_seq_max="1"), configs, together=False)
    assert all(alone)
    for settings in ({"lanes": "1", "n_seq_max": "4"}, {"lanes": "2", "n_seq_max": "2"}):
        assert await replies(embedded(**settings), configs, together=True) == alone
    # Six requests in three slots: later ones start while earlier ones are mid-reply.
    assert await replies(embedded(lanes="1", n_seq_max="3"), configs, together=True) == alone


async def test_sampled_replies_reproduce_whatever_shares_their_steps() -> None:
    configs = [GenerateConfig(max_tokens=16, temperature=1.0, seed=40 + i) for i in range(6)]
    alone = await replies(embedded(lanes="1", n_seq_max="1"), configs, together=False)
    assert await replies(embedded(lanes="1", n_seq_max="4"), configs, together=True) == alone
    model = embedded(lanes="1", n_seq_max="4")
    seeds = [GenerateConfig(max_tokens=16, temperature=1.5, seed=s) for s in range(4)]
    texts = {(await model.generate(ask(QUESTIONS[1]), c)).text for c in seeds}
    assert len(texts) > 1  # the seed matters


async def test_a_restored_prefix_gives_the_reply_a_fresh_evaluation_gives() -> None:
    fresh, reusing = embedded(prefix_reuse="false"), embedded()
    greedy = GenerateConfig(max_tokens=16)
    expected = (await fresh.generate(ask("May I board boat 9?", LONG_RULES), greedy)).text
    await reusing.generate(ask("Which pass opens boat 12?", LONG_RULES), greedy)
    before = reusing.stats.evaluated_prompt_tokens
    again = await reusing.generate(ask("May I board boat 9?", LONG_RULES), greedy)
    evaluated = reusing.stats.evaluated_prompt_tokens - before
    assert evaluated < again.usage.prompt_tokens * 0.2 and again.text == expected


async def test_lanes_share_saved_prompts() -> None:
    model = embedded(lanes="2", n_seq_max="1")
    greedy = GenerateConfig(max_tokens=4)
    await model.generate(ask("May I board boat 3?", LONG_RULES), greedy)
    # Two at once: one per lane, whichever lane takes the one sharing the rules restores them.
    before = model.stats.evaluated_prompt_tokens
    other, same = await asyncio.gather(
        model.generate(ask("Write a short poem about the sea."), greedy),
        model.generate(ask("May I board boat 6?", LONG_RULES), greedy),
    )
    evaluated = model.stats.evaluated_prompt_tokens - before
    assert evaluated < other.usage.prompt_tokens + same.usage.prompt_tokens * 0.2


async def test_a_prompt_too_long_fails_alone_in_its_batch() -> None:
    small = LlamaCppModel.create(
        EMBEDDED_MODEL_NAME, BackendOptions(args={"n_ctx": "128", "lanes": "1", "n_seq_max": "3"})
    )
    greedy = GenerateConfig(max_tokens=8)
    alone = (await small.generate(ask("Say hello."), greedy)).text
    results = await asyncio.gather(
        small.generate(ask(LONG_RULES), greedy),
        small.generate(ask("Say hello."), greedy),
        return_exceptions=True,
    )
    assert isinstance(results[0], ModelError) and "n_ctx" in str(results[0])
    assert not isinstance(results[1], BaseException) and results[1].text == alone


async def test_scores_do_not_depend_on_generation_running_beside() -> None:
    model = embedded(lanes="1", n_seq_max="4")
    question = ask("What is the capital of France?")
    choices = ["Paris", "Berlin", "The capital of France is Paris."]
    alone = await model.score_choices(question, choices)
    busy = [model.generate(ask(q), GenerateConfig(max_tokens=20)) for q in QUESTIONS[:3]]
    *_, beside = await asyncio.gather(*busy, model.score_choices(question, choices))
    assert beside == alone


async def test_closing_the_engine_fails_what_it_still_holds() -> None:
    model = LlamaCppModel.create(
        EMBEDDED_MODEL_NAME, BackendOptions(args={"n_ctx": "512", "lanes": "1", "n_seq_max": "2"})
    )
    pending = [
        asyncio.ensure_future(model.generate(ask(q), GenerateConfig(max_tokens=200)))
        for q in QUESTIONS
    ]
    await asyncio.sleep(0.3)
    await asyncio.to_thread(free_llama_cache)
    outcomes = await asyncio.wait_for(asyncio.gather(*pending, return_exceptions=True), 30)
    failed = [o for o in outcomes if isinstance(o, BaseException)]
    assert failed and all(isinstance(o, ModelError) for o in failed)


def test_logits_do_not_depend_on_the_other_sequences_of_a_step() -> None:
    """The property the engine rests on, at the level of llama.cpp calls (bitwise)."""
    import llama_cpp

    llm = llama_cpp.Llama(model_path=str(embedded_gguf_path()), n_ctx=64, verbose=False)
    prompts = [llm.tokenize(q.encode(), add_bos=False) * 3 for q in QUESTIONS[:4]]
    settings = LlamaSettings(
        path=embedded_gguf_path(), n_ctx=512, n_threads=1, n_threads_batch=1, n_batch=64
    )
    try:
        alone = greedy_logits(BatchContext(llm, lane(1), settings), [prompts[0]], slot=0)
        # The same sequence in the last of four slots, beside others of other lengths.
        crowded = greedy_logits(BatchContext(llm, lane(4), settings), [*prompts[1:], prompts[0]], 3)
        # And in a lane of two threads, as a layout on every core runs it.
        threaded = greedy_logits(BatchContext(llm, lane(1, 2), settings), [prompts[0]], slot=0)
        assert all(np.array_equal(a, b) for a, b in zip(alone, crowded, strict=True))
        assert all(np.array_equal(a, b) for a, b in zip(alone, threaded, strict=True))
    finally:
        llm.close()


def lane(sequences: int, threads: int = 1) -> Layout:
    """One lane of `sequences` on `threads` threads."""
    return Layout(1, sequences, threads, threads, "test")


def greedy_logits(context: BatchContext, prompts: list[list[int]], slot: int) -> list[Any]:
    """Evaluate each prompt in its slot, then 6 greedy steps of all; the logits of `slot`."""
    try:
        last = {}
        for index, prompt in enumerate(prompts):
            for start in range(0, len(prompt), 40):
                chunk = prompt[start : start + 40]
                context.evaluate(index, chunk, start, all_logits=False)
            last[index] = context.logits(-1).copy()
        rows = [last[slot]]
        positions = [len(p) for p in prompts]
        for step in range(6):
            tokens = [int(np.argmax(last[i])) for i in range(len(prompts))]
            context.step([(i, tokens[i], positions[i] + step) for i in range(len(prompts))])
            last = {i: context.logits(i).copy() for i in range(len(prompts))}
            rows.append(last[slot])
        return rows
    finally:
        context.close()
