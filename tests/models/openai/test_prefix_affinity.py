"""Prefix affinity: a request beginning as an earlier one did goes where that one went."""

import asyncio

from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.base import BackendOptions
from rulebench.models.openai.backend import OpenAIModel
from rulebench.models.openai.endpoint_pool import AFFINITY_SLACK, EndpointPool, Replica
from rulebench.models.openai.prefix_affinity import BLOCK_BYTES, AffinityTable, prefix_hashes
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig

from tests.models.fake_clock import FakeClock
from tests.models.openai.test_endpoint_pool import replicas

SYSTEM = Message(role="system", content="Keep the secret. " * 40)
"""A system prompt of several blocks, as a RuLES scenario's is."""


def conversation(name: str, turns: int) -> list[Message]:
    """A conversation's request at turn `turns`: the history, then a new user message."""
    messages = [SYSTEM, Message(role="user", content=f"{name}: hello " * 30)]
    for turn in range(1, turns):
        messages.append(Message(role="assistant", content=f"reply {turn}"))
        messages.append(Message(role="user", content=f"{name}: turn {turn}"))
    return messages


def test_a_next_turn_extends_the_earlier_turns_hashes() -> None:
    first, second = prefix_hashes(conversation("a", 1)), prefix_hashes(conversation("a", 2))
    assert first and second[: len(first)] == first
    other = prefix_hashes(conversation("b", 1))
    shared = sum(a == b for a, b in zip(first, other, strict=False))
    assert 0 < shared < len(first)  # the system prompt is shared, the user's opening is not
    under_a_block = [Message(role="user", content="x" * (BLOCK_BYTES - 10))]
    assert prefix_hashes(under_a_block) == ()


def test_the_table_finds_the_longest_known_beginning_and_forgets_the_oldest() -> None:
    one, two = replicas(2)
    table: AffinityTable[Replica] = AffinityTable(max_keys=4)
    table.remember([b"a", b"b"], one)
    table.remember([b"a"], two)  # the shared beginning moved; the longer one did not
    assert table.find([b"a", b"b", b"c"]) is one
    assert table.find([b"a", b"x"]) is two
    table.remember([b"c", b"d", b"e"], two)
    assert len(table) == 4 and table.find([b"b"]) is None  # "b" was the least recently used


async def test_a_conversations_turns_stay_on_one_replica() -> None:
    pool = EndpointPool(replicas(2), clock=FakeClock())
    first = await pool.acquire(prefix=prefix_hashes(conversation("a", 1)))
    other = next(r for r in pool.replicas if r is not first)
    pool.release(first)
    first.in_flight = 1  # busier than the other, still within the slack
    for turns in (2, 3):
        chosen = await pool.acquire(prefix=prefix_hashes(conversation("a", turns)))
        assert chosen is first
        pool.release(chosen)
    fresh = await pool.acquire(prefix=prefix_hashes([Message(role="user", content="b" * 600)]))
    assert fresh is other  # nothing known of it: the least-loaded replica


async def test_a_cooled_down_replica_is_left_and_the_conversation_follows_the_other() -> None:
    clock = FakeClock()
    pool = EndpointPool(replicas(2), cooldown_s=2.0, clock=clock)
    first = await pool.acquire(prefix=prefix_hashes(conversation("a", 1)))
    pool.release(first)
    pool.failed(first, "connection error: Connection refused")
    moved = await pool.acquire(prefix=prefix_hashes(conversation("a", 2)))
    assert moved is not first
    pool.release(moved)
    clock.advance(2.0)  # due back, and idle: yet the conversation's prefix is now elsewhere
    assert await pool.acquire(prefix=prefix_hashes(conversation("a", 3))) is moved


async def test_a_far_busier_replica_gives_the_request_to_the_least_loaded() -> None:
    pool = EndpointPool(replicas(2), clock=FakeClock())
    first = await pool.acquire(prefix=prefix_hashes(conversation("a", 1)))
    first.in_flight = AFFINITY_SLACK + 1  # the other carries none
    chosen = await pool.acquire(prefix=prefix_hashes(conversation("a", 2)))
    assert chosen is not first


async def test_a_retry_leaves_the_replica_it_failed_on() -> None:
    pool = EndpointPool(replicas(2), clock=FakeClock())
    prefix = prefix_hashes(conversation("a", 1))
    first = await pool.acquire(prefix=prefix)
    pool.release(first)
    assert await pool.acquire(first, prefix) is not first


def two_replica_model(urls: list[str], **args: str) -> OpenAIModel:
    options = BackendOptions(base_url=",".join(urls), args=args)
    return OpenAIModel.create_compatible("mock/echo", options)


async def play(model: OpenAIModel, name: str, turns: int) -> list[str | None]:
    """Play a conversation turn by turn, each after the last; the endpoint of each turn."""
    answered = []
    for turn in range(1, turns + 1):
        await asyncio.sleep(0)  # let the other conversations interleave
        completion = await model.generate(conversation(name, turn), GenerateConfig())
        answered.append(completion.endpoint)
    return answered


async def test_over_two_mock_replicas_each_conversation_keeps_its_replica() -> None:
    config = MockServerConfig(latency_s=0.01)
    async with MockOpenAIServer(config) as one, MockOpenAIServer(config) as two:
        model = two_replica_model([one.url, two.url])
        played = await asyncio.gather(*(play(model, f"user{i}", 4) for i in range(6)))
        await model.aclose()
    assert all(len(set(endpoints)) == 1 for endpoints in played)
    assert {endpoints[0] for endpoints in played} == {one.url, two.url}  # spread over both
    sent = [len(one.requests), len(two.requests)]
    assert sum(sent) == 24 and min(sent) >= 8
    assert all(r["messages"][0]["content"] == SYSTEM.content for r in one.requests)


async def test_with_prefix_affinity_off_every_request_goes_to_the_least_loaded() -> None:
    async with MockOpenAIServer() as one, MockOpenAIServer() as two:
        model = two_replica_model([one.url, two.url], prefix_affinity="false")
        played = await play(model, "solo", 4)
        await model.aclose()
    assert played == [one.url, two.url, one.url, two.url]  # idle both: round robin
