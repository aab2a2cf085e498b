"""Client-side rate limits: no 60 s window ever holds more requests or tokens than the caps."""

import asyncio
import logging
import re
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebench.core.errors import ConfigError, ModelError
from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.base import BackendOptions
from rulebench.models.openai.backend import OpenAIConfig, OpenAIModel
from rulebench.models.openai.endpoint import resolve_endpoints
from rulebench.models.openai.rate_limit import RateLimiter, estimate_tokens
from rulebench.testing.mock_server import MockOpenAIServer

from tests.models.fake_clock import FakeClock


def most_in_any_window(times: Sequence[float], weights: Sequence[int] | None = None) -> int:
    """The largest total weight (count by default) of entries within any closed 60 s window.

    A window holding the most can always be moved to start at an entry, so [t, t + 60] for each
    entry's t covers every placement, both ends included.
    """
    weights = weights or [1] * len(times)
    pairs = sorted(zip(times, weights, strict=True))
    return max(
        (sum(w for t, w in pairs if start <= t <= start + 60) for start, _ in pairs), default=0
    )


async def test_requests_per_minute_hold_under_a_burst() -> None:
    clock = FakeClock()
    limiter = RateLimiter(requests_per_minute=3, clock=clock)
    admitted: list[float] = []

    async def one() -> None:
        await limiter.acquire(1)
        admitted.append(clock.now())  # no await in between: the admission time itself

    await asyncio.gather(*(one() for _ in range(20)))
    assert len(admitted) == 20
    assert most_in_any_window(admitted) == 3
    assert max(admitted) - min(admitted) >= 6 * 60  # 20 requests need 7 windows at 3/min


async def test_tokens_per_minute_hold_under_a_burst() -> None:
    clock = FakeClock()
    limiter = RateLimiter(tokens_per_minute=1000, clock=clock)
    sizes = [300, 700, 50, 999, 1, 400, 400, 400, 250, 600] * 3
    admitted: list[tuple[float, int]] = []

    async def one(tokens: int) -> None:
        await limiter.acquire(tokens)
        admitted.append((clock.now(), tokens))

    await asyncio.gather(*(one(size) for size in sizes))
    assert sorted(t for _, t in admitted) == sorted(sizes)
    assert most_in_any_window(*zip(*admitted, strict=True)) <= 1000


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(min_value=0, max_value=90),  # seconds since the previous request
            st.integers(min_value=1, max_value=500),  # estimated tokens
            st.floats(min_value=0.0, max_value=1.0),  # share of the estimate the reply used
        ),
        min_size=1,
        max_size=40,
    ),
    st.integers(min_value=1, max_value=5),
)
def test_no_window_ever_exceeds_either_cap(
    requests: list[tuple[float, int, float]], requests_per_minute: int
) -> None:
    clock = FakeClock()
    limiter = RateLimiter(requests_per_minute, 1000, clock)
    log: list[tuple[float, int]] = []

    async def run() -> None:
        for gap_s, estimate, share in requests:
            clock.advance(gap_s)
            ticket = await limiter.acquire(estimate)
            used = max(1, round(estimate * share))
            limiter.settle(ticket, used)
            log.append((clock.now(), used))

    asyncio.run(run())
    times = [t for t, _ in log]
    assert most_in_any_window(times) <= requests_per_minute
    assert most_in_any_window(times, [used for _, used in log]) <= 1000


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([0.0, 0.01, 0.5, 1.0, 30.0, 59.99, 60.0, 61.0]),  # gap before it
            st.integers(min_value=1, max_value=700),  # estimated tokens
            st.integers(min_value=0, max_value=900),  # tokens the reply says it used
            st.floats(min_value=0.0, max_value=1.0),  # share of the margin spent on the way
        ),
        min_size=1,
        max_size=40,
    ),
    st.integers(min_value=1, max_value=5),
)
def test_no_window_the_server_places_exceeds_either_cap(
    requests: list[tuple[float, int, int, float]], requests_per_minute: int
) -> None:
    # The server counts a request when it arrives (up to the margin after its admission), by
    # the estimate on arrival, whatever the reply later uses (more or less than that).
    clock = FakeClock()
    limiter = RateLimiter(requests_per_minute, 1000, clock, margin_s=1.0)
    arrivals: list[tuple[float, int]] = []

    async def run() -> None:
        for gap_s, estimate, used, delay_share in requests:
            clock.advance(gap_s)
            ticket = await limiter.acquire(estimate)
            arrivals.append((clock.now() + delay_share * 1.0, estimate))
            limiter.settle(ticket, used)

    asyncio.run(run())
    times = [t for t, _ in arrivals]
    assert most_in_any_window(times) <= requests_per_minute
    assert most_in_any_window(times, [tokens for _, tokens in arrivals]) <= 1000


async def test_a_request_exactly_a_minute_after_a_full_window_waits() -> None:
    clock = FakeClock()
    limiter = RateLimiter(requests_per_minute=2, clock=clock, margin_s=0.0)
    for _ in range(2):
        await limiter.acquire(1)
    clock.advance(60.0)  # the first two are exactly 60 s old: [t, t + 60] would hold three
    await limiter.acquire(1)
    assert clock.now() > 1060.0


async def test_the_margin_keeps_requests_apart_by_more_than_a_minute() -> None:
    clock = FakeClock()
    limiter = RateLimiter(requests_per_minute=1, clock=clock, margin_s=2.5)
    await limiter.acquire(1)
    await limiter.acquire(1)
    assert clock.now() - 1000.0 >= 62.5


async def test_a_reply_using_less_than_its_estimate_frees_nothing() -> None:
    # A server counts max_tokens on arrival and gives nothing back: 2 requests of 400 a minute.
    clock = FakeClock()
    limiter = RateLimiter(tokens_per_minute=1000, clock=clock)
    for _ in range(3):
        ticket = await limiter.acquire(400)
        limiter.settle(ticket, 20)
    assert clock.now() - 1000.0 > 60


async def test_a_reply_using_more_than_its_estimate_counts_for_more() -> None:
    clock = FakeClock()
    limiter = RateLimiter(tokens_per_minute=1000, clock=clock)
    ticket = await limiter.acquire(100)
    limiter.settle(ticket, 900)
    await limiter.acquire(200)
    assert clock.now() - 1000.0 > 60


async def test_a_request_larger_than_the_token_cap_is_refused() -> None:
    limiter = RateLimiter(tokens_per_minute=100, clock=FakeClock())
    with pytest.raises(ValueError, match="101 tokens exceed the cap of 100"):
        await limiter.acquire(101)


def test_tokens_are_estimated_from_characters_plus_max_tokens() -> None:
    messages = [Message(role="system", content="x" * 10), Message(role="user", content="y" * 7)]
    assert estimate_tokens(messages, 100) == 5 + 100  # ceil(17 / 4) + max_tokens


# --- through the backend, against the mock server ------------------------------------------------


def limited_model(urls: str, clock: FakeClock, **limits: int) -> OpenAIModel:
    options = BackendOptions(base_url=urls)
    config = OpenAIConfig(**limits)
    return OpenAIModel(resolve_endpoints("openai-api", "mock/echo", "echo", options), config, clock)


def admissions(caplog: pytest.LogCaptureFixture) -> list[tuple[float, int]]:
    found = (
        re.search(r"admitted (\d+) tokens at ([0-9.]+)", r.getMessage()) for r in caplog.records
    )
    return [(float(m.group(2)), int(m.group(1))) for m in found if m]


async def test_the_backend_keeps_both_caps_and_every_item_succeeds(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    caplog.set_level(logging.DEBUG, logger="rulebench.models.openai.rate_limit")
    config = GenerateConfig(max_tokens=50)
    # Every reply uses all 50 max_tokens, so the real usage is close to the estimate.
    async with MockOpenAIServer(reply_fn=lambda body: "word " * 99) as server:
        model = limited_model(
            server.url, clock, max_requests_per_minute=4, max_tokens_per_minute=200
        )
        texts = [f"item {i:02d} with some words" for i in range(12)]
        replies = await asyncio.gather(
            *(model.generate([Message(role="user", content=t)], config) for t in texts)
        )
        await model.aclose()
    assert len(replies) == len(server.requests) == 12
    used = {r.usage.prompt_tokens + r.usage.completion_tokens for r in replies}
    assert used == {55}  # 5 prompt words + 50 completion words; estimated as 6 + 50
    log = admissions(caplog)
    assert [tokens for _, tokens in log] == [56] * 12
    times = [t for t, _ in log]
    assert most_in_any_window(times) == 3  # the token cap binds first: 4 x 56 > 200
    assert most_in_any_window(times, [55] * 12) <= 200
    assert clock.now() - 1000.0 >= 3 * 60  # 12 requests, 3 a minute: the clock moved on


async def test_requests_queued_for_a_connection_reach_the_server_within_the_cap() -> None:
    # One connection: requests wait for it. Admitted before that wait, the ones queued behind
    # the first reached the server after the clock had moved on, with a new window's requests.
    clock = FakeClock()
    arrivals: list[float] = []

    def reply(body: object) -> str:
        arrivals.append(clock.now())
        return "ok"

    async with MockOpenAIServer(reply_fn=reply) as server:
        options = BackendOptions(base_url=server.url)
        config = OpenAIConfig(max_requests_per_minute=2, max_connections=1)
        endpoint = resolve_endpoints("openai-api", "mock/echo", "echo", options)
        model = OpenAIModel(endpoint, config, clock)
        message = [Message(role="user", content="hi")]
        await asyncio.gather(*(model.generate(message, GenerateConfig()) for _ in range(6)))
        await model.aclose()
    assert len(arrivals) == 6
    assert most_in_any_window(arrivals) <= 2


async def test_limits_hold_per_endpoint() -> None:
    clock = FakeClock()
    async with MockOpenAIServer() as first, MockOpenAIServer() as second:
        model = limited_model(f"{first.url},{second.url}", clock, max_requests_per_minute=2)
        message = [Message(role="user", content="hi")]
        await asyncio.gather(*(model.generate(message, GenerateConfig()) for _ in range(4)))
        assert clock.slept == []  # two each: within both endpoints' caps
        await model.generate(message, GenerateConfig())
        await model.aclose()
    assert clock.now() - 1000.0 >= 59  # the fifth waited for a window to free


async def test_a_token_cap_below_one_request_is_a_clear_error_not_a_hang() -> None:
    async with MockOpenAIServer() as server:
        model = limited_model(server.url, FakeClock(), max_tokens_per_minute=100)
        with pytest.raises(ModelError) as caught:
            await model.generate([Message(role="user", content="hello")], GenerateConfig())
        await model.aclose()
    message = str(caught.value)
    assert "~258 tokens" in message and "max_tokens_per_minute=100" in message
    assert "raise -M max_tokens_per_minute or lower --max-tokens" in message
    assert server.requests == []


def test_rate_limit_settings_are_validated() -> None:
    for setting in ("max_requests_per_minute", "max_tokens_per_minute"):
        with pytest.raises(ConfigError, match=f"-M {setting}: Input should be greater than"):
            OpenAIModel.create_compatible(
                "mock/echo", BackendOptions(base_url="http://127.0.0.1:1/v1", args={setting: "0"})
            )
