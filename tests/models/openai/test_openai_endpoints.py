"""Several base URLs for one model: spread, least-loaded choice, failover, recorded endpoint."""

import asyncio
import logging
import re
from collections.abc import AsyncIterator

import pytest

from rulebench.core.credentials import redact_url
from rulebench.core.errors import ConfigError, ModelError
from rulebench.core.messages import GenerateConfig, Message
from rulebench.engine.runner import RunSpec
from rulebench.models.base import BackendOptions
from rulebench.models.openai.backend import OpenAIModel
from rulebench.models.openai.endpoint import resolve_endpoints, split_base_urls
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig

from tests.llama_server import free_port
from tests.models.retry_log import waits_logged

FAST = {"initial_backoff_s": "0.01", "max_backoff_s": "0.2", "cooldown_s": "0.05"}
FAILING = MockServerConfig(fault_rate=1.0, fault_kinds=("500",))


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MOCK_API_KEY", "MOCK_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
async def servers() -> AsyncIterator[list[MockOpenAIServer]]:
    mocks = [MockOpenAIServer(MockServerConfig(latency_s=0.02)) for _ in range(4)]
    for mock in mocks:
        await mock.start()
    yield mocks
    for mock in mocks:
        await mock.stop()


def make_model(urls: list[str], **args: object) -> OpenAIModel:
    settings = {**FAST, **{key: str(value) for key, value in args.items()}}
    options = BackendOptions(base_url=",".join(urls), args=settings)
    return OpenAIModel.create_compatible("mock/echo", options)


def ask_all(model: OpenAIModel, count: int, prefix: str = "q") -> "asyncio.Future[list[str]]":
    async def one(i: int) -> str:
        completion = await model.generate(
            [Message(role="user", content=f"{prefix}{i}")], GenerateConfig()
        )
        assert completion.text == f"{prefix}{i}"
        assert completion.endpoint is not None
        return completion.endpoint

    return asyncio.gather(*(one(i) for i in range(count)))


# --- spreading the load ---------------------------------------------------------------------------


async def test_requests_spread_evenly_over_equal_replicas(servers: list[MockOpenAIServer]) -> None:
    model = make_model([s.url for s in servers])
    answered = await ask_all(model, 40)
    await model.aclose()
    assert [len(s.requests) for s in servers] == [10, 10, 10, 10]
    assert sorted(set(answered)) == sorted(s.url for s in servers)
    assert all(answered.count(s.url) == 10 for s in servers)  # each completion says who answered


async def test_the_least_loaded_replica_gets_the_next_request() -> None:
    async with (
        MockOpenAIServer(MockServerConfig(latency_s=0.2)) as slow,
        MockOpenAIServer() as fast,
    ):
        model = make_model([slow.url, fast.url])

        async def worker(w: int) -> None:
            for i in range(10):
                await model.generate([Message(role="user", content=f"{w}-{i}")], GenerateConfig())

        await asyncio.gather(*(worker(w) for w in range(4)))
        await model.aclose()
    # Each request the slow replica holds keeps it loaded; the fast one takes the rest.
    assert len(slow.requests) + len(fast.requests) == 40
    assert len(slow.requests) <= 10 < 30 <= len(fast.requests)  # an even split is 20/20


# --- failover -------------------------------------------------------------------------------------


async def test_a_retry_goes_to_another_replica_at_once(caplog: pytest.LogCaptureFixture) -> None:
    async with MockOpenAIServer(FAILING) as failing, MockOpenAIServer() as healthy:
        model = make_model([failing.url, healthy.url], initial_backoff_s=5, max_backoff_s=10)
        with caplog.at_level(logging.DEBUG, logger="rulebench.models.openai.backend"):
            completion = await model.generate([Message(role="user", content="x")], GenerateConfig())
        await model.aclose()
    assert len(failing.requests) == 1 and len(healthy.requests) == 1
    assert completion.endpoint == healthy.url
    # No 5 s backoff: another replica was healthy (bench/bench_failover.py times it).
    assert waits_logged(caplog) == [0.0]


async def test_every_item_succeeds_while_one_replica_answers_500(
    servers: list[MockOpenAIServer], caplog: pytest.LogCaptureFixture
) -> None:
    async with MockOpenAIServer(FAILING) as failing:
        model = make_model([failing.url, *(s.url for s in servers[:2])], cooldown_s=10)
        with caplog.at_level(logging.WARNING, logger="rulebench.models.openai.endpoint_pool"):
            answered = await ask_all(model, 60)
        await model.aclose()
    assert failing.url not in answered
    # The first wave went out before any 500 came back; once out (10 s), nothing more went
    # there, so no conversation reached it twice.
    sent = [r["messages"][0]["content"] for r in failing.requests]
    assert len(sent) <= 20 and len(set(sent)) == len(sent)
    assert f"endpoint {failing.url} taken out for 10 s: 500 Internal Server Error" in caplog.text


async def test_a_dead_replica_is_probed_later_and_comes_back(
    servers: list[MockOpenAIServer],
) -> None:
    port = free_port()
    dead_url = f"http://127.0.0.1:{port}/v1"
    model = make_model([dead_url, servers[0].url], cooldown_s=0.05)
    answered = await ask_all(model, 20, "before")
    assert dead_url not in answered
    async with MockOpenAIServer(MockServerConfig(port=port)) as revived:
        await asyncio.sleep(0.5)  # past the cool-down, however often it doubled (cap 0.2 s)
        answered = await ask_all(model, 20, "after")  # one of them probes it
        assert dead_url in answered
        answered = await ask_all(model, 20, "again")
        await model.aclose()
    assert answered.count(dead_url) == 10  # back in full, not just probed
    assert len(revived.requests) == 11


async def test_when_every_replica_fails_the_item_fails_after_the_retry_budget() -> None:
    async with MockOpenAIServer(FAILING) as first, MockOpenAIServer(FAILING) as second:
        model = make_model([first.url, second.url], max_retries=3)
        with pytest.raises(ModelError, match=r"500 Internal Server Error after 4 attempts"):
            await model.generate([Message(role="user", content="x")], GenerateConfig())
        await model.aclose()
    assert len(first.requests) + len(second.requests) == 4


async def test_a_bad_request_is_final_on_any_replica(servers: list[MockOpenAIServer]) -> None:
    model = make_model([s.url for s in servers])
    with pytest.raises(ModelError, match="400 Bad Request"):
        await model.generate([Message(role="user", content="[[fault:400]]")], GenerateConfig())
    await model.aclose()
    assert sum(len(s.requests) for s in servers) == 1


# --- reachability ---------------------------------------------------------------------------------


async def test_check_reachable_warns_of_each_dead_replica_and_leaves_it_out(
    servers: list[MockOpenAIServer], caplog: pytest.LogCaptureFixture
) -> None:
    dead = [f"http://127.0.0.1:{free_port()}/v1" for _ in range(2)]
    model = make_model([dead[0], servers[0].url, dead[1]], cooldown_s=30)
    with caplog.at_level(logging.WARNING):
        await model.check_reachable()
    for url in dead:
        assert f"cannot reach {url}/models: " in caplog.text
    answered = await ask_all(model, 5)
    await model.aclose()
    assert set(answered) == {servers[0].url}


async def test_check_reachable_fails_when_no_replica_answers() -> None:
    dead = [f"http://127.0.0.1:{free_port()}/v1" for _ in range(2)]
    model = make_model(dead)
    with pytest.raises(ModelError, match="cannot reach any of its 2 servers: ") as caught:
        await model.check_reachable()
    await model.aclose()
    assert all(f"{url}/models" in str(caught.value) for url in dead)


# --- identity, recording, redaction ---------------------------------------------------------------


def test_identity_ignores_the_order_of_urls_and_drops_credentials() -> None:
    a, b = "http://127.0.0.1:8001/v1", "http://user:pw@127.0.0.1:8002/v1"
    one, two = make_model([a, b]), make_model([b, a])
    expected = "openai-api/mock/echo@http://127.0.0.1:8001/v1,http://127.0.0.1:8002/v1"
    assert one.info.identity == two.info.identity == expected
    assert make_model([a]).info.identity == f"openai-api/mock/echo@{a}"
    assert two.endpoint_urls == ("http://127.0.0.1:8002/v1", a)


async def test_a_single_endpoint_is_recorded_too(servers: list[MockOpenAIServer]) -> None:
    model = make_model([servers[0].url])
    assert await ask_all(model, 2) == [servers[0].url] * 2
    await model.aclose()


def test_every_url_of_a_list_is_redacted_for_storage() -> None:
    stored = redact_url("http://u:p1@a:1/v1, https://TOKEN@b/v1,http://c/v1")
    assert stored == "http://***@a:1/v1, https://***@b/v1,http://c/v1"
    # A comma inside a password does not split the URL: the whole userinfo is hidden.
    assert redact_url("http://u:p,w@a/v1,http://v:q@b/v1") == ("http://***@a/v1,http://***@b/v1")
    spec = RunSpec(task="t", model="m", base_url="http://u:secret@a/v1,http://v:hush@b/v1")
    dumped = spec.model_dump_json()
    assert "secret" not in dumped and "hush" not in dumped


def test_a_stored_list_with_redacted_credentials_is_refused() -> None:
    stored = redact_url("http://127.0.0.1:1/v1,http://u:pw@127.0.0.1:2/v1")
    with pytest.raises(ConfigError, match=r"\(URL 2 of 2\): the run's server URL had credentials"):
        make_model([stored])


def test_urls_split_only_before_a_scheme() -> None:
    assert split_base_urls(" http://a/v1 ,https://b/v1") == ["http://a/v1", "https://b/v1"]
    assert split_base_urls("http://u:p,w@a/v1") == ["http://u:p,w@a/v1"]


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("http://a:1/v1,http://[::1", r"\(URL 2 of 2\) is not a valid URL \(Invalid IPv6 URL"),
        ("http://a:1/v1,http://b:99999/v1", r"\(URL 2 of 2\) is not a valid URL \(Port out of"),
        ("http://a:1/v1,ftp://b/v1", r"\(URL 2 of 2\) is not an http\(s\) URL: 'ftp://b/v1'"),
        ("http://a:1/v1,b:2/v1", r"--base-url holds a comma: to list several servers"),
        ("http://a:1/v1,", r"--base-url holds a comma"),
        (",http://a:1/v1", r"--base-url \(URL 1 of 2\) is empty"),
        ("http://a:1/v1,http://b/v1,http://a:1/v1/", r"\(URL 3 of 3\) repeats URL 1"),
    ],
)
def test_a_malformed_url_in_a_list_is_named_by_position(value: str, error: str) -> None:
    with pytest.raises(ConfigError, match=error):
        make_model([value])


def test_an_environment_variable_may_list_several_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOCK_BASE_URL", "http://127.0.0.1:8001/v1,http://127.0.0.1:8002/v1")
    endpoints = resolve_endpoints("openai-api", "mock/echo", "echo", BackendOptions())
    assert [e.base_url for e in endpoints] == [
        "http://127.0.0.1:8001/v1",
        "http://127.0.0.1:8002/v1",
    ]
    monkeypatch.setenv("MOCK_BASE_URL", "http://127.0.0.1:8001/v1,http://[::1")
    with pytest.raises(ConfigError, match=re.escape("MOCK_BASE_URL (URL 2 of 2) is not a valid")):
        resolve_endpoints("openai-api", "mock/echo", "echo", BackendOptions())
