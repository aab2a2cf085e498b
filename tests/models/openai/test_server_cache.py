"""The prompt tokens a server says it took from its prefix cache: read, summed, and noted."""

import asyncio
import json

import pytest

from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.models.openai.reply import parse_reply
from rulebench.models.openai.server_cache import CacheReport, ServerCacheTally
from rulebench.testing.mock_prefix_cache import CacheReportStyle, MockPrefixCache
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig

from tests.conftest import EchoTask
from tests.models.openai.test_prefix_affinity import play, two_replica_model


def body(**fields: object) -> bytes:
    choice = {"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    usage = {"prompt_tokens": 100, "completion_tokens": 2}
    return json.dumps({"choices": [choice], "usage": usage} | fields).encode()


def test_llama_cpp_timings_give_the_cached_and_the_evaluated_tokens() -> None:
    reply = parse_reply(body(timings={"cache_n": 64, "prompt_n": 36, "predicted_n": 2}))
    assert reply.cache == CacheReport(64, 36, "llama.cpp timings")


def test_vllm_usage_details_give_the_cached_tokens() -> None:
    usage = {"prompt_tokens": 100, "prompt_tokens_details": {"cached_tokens": 80}}
    reply = parse_reply(body(usage=usage))
    assert reply.cache == CacheReport(80, None, "usage.prompt_tokens_details")
    assert reply.prompt_tokens == 100


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"timings": {"cache_n": 5}},  # no prompt_n: not a report
        {"timings": "fast"},
        {"usage": {"prompt_tokens": 9, "prompt_tokens_details": {"cached_tokens": -1}}},
        {"usage": {"prompt_tokens": 9, "prompt_tokens_details": {"cached_tokens": "9"}}},
    ],
)
def test_replies_without_a_usable_report_have_none(fields: dict[str, object]) -> None:
    assert parse_reply(body(**fields)).cache is None


def test_the_tally_sums_reports_and_says_how_many_replies_had_one() -> None:
    tally = ServerCacheTally()
    tally.add(100, CacheReport(60, 40, "llama.cpp timings"))
    tally.add(50, None)
    tally.add(200, CacheReport(150, 50, "llama.cpp timings"))
    assert (tally.cached, tally.evaluated, tally.prompt_tokens) == (210, 90, 300)
    assert tally.notes == (
        "server prompt cache: 210 of 300 prompt tokens (70.0%) came from the server's cache, "
        "90 were evaluated (llama.cpp timings, 2 of 3 replies)",
    )
    vllm = ServerCacheTally()
    vllm.add(100, CacheReport(30, None, "usage.prompt_tokens_details"))
    assert vllm.evaluated == 70
    assert ServerCacheTally().notes == ()


def test_the_mock_cache_finds_the_longest_held_beginning_and_forgets_the_oldest() -> None:
    cache = MockPrefixCache(slots=2)
    assert cache.serve(["a", "b", "c"]) == 0
    assert cache.serve(["x", "y"]) == 0
    assert cache.serve(["a", "b", "c", "d"]) == 3  # took the slot of "a b c"
    assert cache.serve(["p", "q"]) == 0  # evicts "x y", the oldest
    assert cache.serve(["x", "y", "z"]) == 0


async def cached_share(style: CacheReportStyle, affinity: str) -> tuple[ServerCacheTally, str]:
    config = MockServerConfig(latency_s=0.01, prefix_cache=style, cache_slots=2)
    async with MockOpenAIServer(config) as one, MockOpenAIServer(config) as two:
        model = two_replica_model([one.url, two.url], prefix_affinity=affinity)
        await asyncio.gather(*(play(model, f"user{i}", 4) for i in range(4)))
        await model.aclose()
    return model.server_cache, "\n".join(model.run_notes)


@pytest.mark.parametrize("style", ["timings", "usage"])
async def test_affinity_routing_shows_as_more_of_the_prompt_cached(style: CacheReportStyle) -> None:
    routed, notes = await cached_share(style, "true")
    scattered, _ = await cached_share(style, "false")
    assert routed.reported == routed.replies == 16
    assert routed.cached + routed.evaluated == routed.prompt_tokens
    assert routed.cached > scattered.cached
    assert notes.count("server prompt cache: ") == 1


async def test_a_run_keeps_the_report_in_its_notes_and_not_in_its_rows(store: Store) -> None:
    config = MockServerConfig(prefix_cache="timings")
    async with MockOpenAIServer(config) as server:
        model = two_replica_model([server.url])
        spec = RunSpec(task="echo-test", model="openai-api/mock/echo", use_cache=False)
        report = await Runner(store).run(EchoTask(6), model, spec)
        await model.aclose()
    notes = report.run.notes["backend_notes"]
    assert isinstance(notes, list)
    assert any(str(note).startswith("server prompt cache: ") for note in notes)
    rows = list(store.iter_results(report.run.id))
    assert rows and all("cache_n" not in json.dumps(row.model_dump()) for row in rows)
