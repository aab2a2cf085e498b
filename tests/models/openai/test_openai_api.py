"""OpenAIModel against the fault-injecting mock server (and, marked slow, llama.cpp's server)."""

import asyncio
import gc
import logging
import re
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from rulebench.core.errors import ConfigError, ModelError, TransientModelError
from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.base import BackendOptions, Model
from rulebench.models.openai.backend import (
    OpenAIModel,
    parse_reply,
    parse_retry_after,
    server_message,
)
from rulebench.models.registry import create_model
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig, serve_in_thread

from tests.llama_server import free_port, serve_embedded_model, wait_until_serving
from tests.models.retry_log import waits_logged

# Small waits keep the retry tests fast; each test widens only what it measures.
FAST = {"initial_backoff_s": "0.01", "max_backoff_s": "0.05", "max_retry_after_s": "5"}
KEY = "sk-test-4f1c9a7e0b2d"
ENV_VARS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "MOCK_API_KEY", "MOCK_BASE_URL")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
async def server() -> AsyncIterator[MockOpenAIServer]:
    async with MockOpenAIServer() as mock:
        yield mock


def make_model(url: str, **args: object) -> OpenAIModel:
    settings = {**FAST, **{key: str(value) for key, value in args.items()}}
    return OpenAIModel.create_compatible("mock/echo", BackendOptions(base_url=url, args=settings))


@pytest.fixture
async def model(server: MockOpenAIServer) -> AsyncIterator[OpenAIModel]:
    backend = make_model(server.url)
    yield backend
    await backend.aclose()


async def ask(backend: OpenAIModel, text: str, **config: object) -> str:
    completion = await backend.generate(
        [Message(role="user", content=text)], GenerateConfig.model_validate(config)
    )
    return completion.text


# --- happy path -----------------------------------------------------------------------------------


async def test_reply_carries_text_usage_and_latency(model: OpenAIModel) -> None:
    completion = await model.generate(
        [Message(role="system", content="Be brief."), Message(role="user", content="hello there")],
        GenerateConfig(),
    )
    assert completion.text == "hello there"
    assert completion.usage.prompt_tokens == 4
    assert completion.usage.completion_tokens == 2
    assert completion.finish_reason == "stop"
    assert completion.latency_s > 0


async def test_body_carries_every_generation_parameter(
    model: OpenAIModel, server: MockOpenAIServer
) -> None:
    messages = [Message(role="system", content="S"), Message(role="user", content="U")]
    config = GenerateConfig(max_tokens=7, temperature=0.5, top_p=0.9, seed=11, stop=("END",))
    await model.generate(messages, config)
    (request,) = server.requests
    assert request["messages"] == [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "U"},
    ]
    assert request["params"] == {
        "model": "echo",
        "max_tokens": 7,
        "temperature": 0.5,
        "top_p": 0.9,
        "seed": 11,
        "stop": ["END"],
    }


async def test_body_omits_unset_seed_and_empty_stop(
    model: OpenAIModel, server: MockOpenAIServer
) -> None:
    await ask(model, "hi", seed=None)
    assert "seed" not in server.requests[0]["params"]
    assert "stop" not in server.requests[0]["params"]


async def test_length_limit_is_reported(model: OpenAIModel) -> None:
    completion = await model.generate(
        [Message(role="user", content="one two three")], GenerateConfig(max_tokens=2)
    )
    assert (completion.text, completion.finish_reason) == ("one two", "length")


def test_null_content_and_missing_usage_become_empty_and_zero() -> None:
    # The mock always sends content and usage; a reply without them is checked at the parser.
    reply = parse_reply(b'{"choices": [{"message": {"content": null}, "finish_reason": "stop"}]}')
    assert (reply.text, reply.prompt_tokens, reply.completion_tokens) == ("", 0, 0)


async def test_model_meets_the_protocol_and_the_registry_builds_it(
    server: MockOpenAIServer,
) -> None:
    backend = create_model("openai-api/mock/echo", BackendOptions(base_url=server.url))
    assert isinstance(backend, OpenAIModel)
    assert isinstance(backend, Model)
    assert await ask(backend, "via registry") == "via registry"
    await backend.aclose()


# --- retries --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["500", "502", "503", "429r0", "malformed", "drop", "nochoices"])
async def test_transient_fault_is_retried_until_it_clears(
    model: OpenAIModel, server: MockOpenAIServer, kind: str
) -> None:
    text = f"question [[fault:{kind}x2]]"
    assert await ask(model, text) == text
    assert [r["fault"] for r in server.requests_with(text)] == [kind, kind, None]


async def test_slow_reply_times_out_and_is_retried(server: MockOpenAIServer) -> None:
    backend = make_model(server.url, timeout_s=0.3)
    start = time.perf_counter()
    assert await ask(backend, "[[fault:slowx1]]") == "[[fault:slowx1]]"
    assert time.perf_counter() - start >= 0.3
    assert len(server.requests) == 2
    await backend.aclose()


async def test_retry_after_is_honoured(model: OpenAIModel, server: MockOpenAIServer) -> None:
    start = time.perf_counter()
    await ask(model, "[[fault:429x1]]")
    assert time.perf_counter() - start >= 0.9  # the mock sends Retry-After: 1
    assert len(server.requests) == 2


async def test_retry_after_is_capped(
    server: MockOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    backend = make_model(server.url, max_retry_after_s=0.1)
    with caplog.at_level(logging.DEBUG, logger="rulebench.models.openai.backend"):
        await ask(backend, "[[fault:429x1]]")  # the server asks for Retry-After: 1
    assert waits_logged(caplog) == [0.1]
    await backend.aclose()


async def test_exhausted_retries_raise_one_line_model_error(server: MockOpenAIServer) -> None:
    backend = make_model(server.url, max_retries=2)
    with pytest.raises(ModelError) as caught:
        await ask(backend, "[[fault:503]]")
    assert not isinstance(caught.value, TransientModelError)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("openai-api/mock/echo: 503 Service Unavailable after 3 attempts")
    assert f"({server.url})" in message
    assert len(server.requests) == 3
    await backend.aclose()


async def test_exhausted_timeouts_say_so(server: MockOpenAIServer) -> None:
    backend = make_model(server.url, timeout_s=0.2, max_retries=0)
    with pytest.raises(ModelError, match=r"no reply within 0\.2 s after 1 attempt \("):
        await ask(backend, "[[fault:slow]]")
    await backend.aclose()


async def test_bad_request_fails_at_once(model: OpenAIModel, server: MockOpenAIServer) -> None:
    with pytest.raises(ModelError, match=r"400 Bad Request .*: injected fault 400") as caught:
        await ask(model, "[[fault:400]]")
    assert not isinstance(caught.value, TransientModelError)
    assert len(server.requests) == 1


async def test_dead_server_fails_after_retries_naming_the_cause() -> None:
    backend = make_model(f"http://127.0.0.1:{free_port()}/v1", max_retries=1)
    with pytest.raises(ModelError, match=r"connection error: .* after 2 attempts"):
        await ask(backend, "anyone?")
    await backend.aclose()


async def test_each_retry_is_logged_at_debug(
    model: OpenAIModel, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="rulebench.models.openai.backend")
    await ask(model, "[[fault:500x2]]")
    retries = [r for r in caplog.records if "retrying" in r.getMessage()]
    assert len(retries) == 2
    assert all(r.levelno == logging.DEBUG and r.args for r in retries)


# --- concurrency and event loops ------------------------------------------------------------------


async def test_concurrency_is_bounded_by_max_connections() -> None:
    async with MockOpenAIServer(MockServerConfig(latency_s=0.05)) as mock:
        backend = make_model(mock.url, max_connections=4)
        replies = await asyncio.gather(*(ask(backend, f"q{i}") for i in range(20)))
        await backend.aclose()
    assert replies == [f"q{i}" for i in range(20)]
    assert mock.max_in_flight == 4


@pytest.mark.filterwarnings("error")
def test_model_built_outside_a_loop_serves_successive_loops() -> None:
    with serve_in_thread() as mock:
        backend = make_model(mock.url)
        assert asyncio.run(ask(backend, "first")) == "first"
        # No aclose() in the first loop: its sockets must still be closed, not leaked.
        assert asyncio.run(ask(backend, "second")) == "second"
        asyncio.run(backend.aclose())
        gc.collect()  # an unclosed socket would warn here, failing the test
    assert len(mock.requests) == 2


# --- keys and environment -------------------------------------------------------------------------


async def test_key_is_sent_as_bearer_and_shown_nowhere(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("MOCK_API_KEY", KEY)
    async with MockOpenAIServer(MockServerConfig(require_api_key=KEY)) as mock:
        backend = make_model(mock.url, max_retries=1)
        assert await ask(backend, "authorized") == "authorized"
        errors = []
        for text in ("[[fault:503]]", "[[fault:400]]"):
            with pytest.raises(ModelError) as caught:
                await ask(backend, text)
            errors.append(str(caught.value))
        await backend.aclose()
    assert mock.requests[0]["has_auth"]
    shown = [repr(backend), str(backend.info), backend.info.model_dump_json(), *errors]
    shown += [record.getMessage() for record in caplog.records]
    assert any("retrying" in text for text in shown)
    assert not [text for text in shown if KEY in text]


async def test_key_echoed_by_a_refusing_server_is_scrubbed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MOCK_API_KEY", KEY)
    async with MockOpenAIServer(MockServerConfig(require_api_key="sk-other")) as mock:
        backend = make_model(mock.url)
        with pytest.raises(ModelError, match="401 Unauthorized") as caught:
            await ask(backend, "let me in")
        await backend.aclose()
    assert KEY not in str(caught.value)
    assert len(mock.requests) == 1


async def test_custom_url_without_key_sends_no_authorization(
    model: OpenAIModel, server: MockOpenAIServer
) -> None:
    await ask(model, "local")
    assert server.requests[0]["has_auth"] is False


async def test_openai_spec_reads_openai_env(
    server: MockOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    backend = OpenAIModel.create_openai("gpt-test", BackendOptions())
    assert backend.info.identity == f"openai/gpt-test@{server.url}"
    assert await ask(backend, "hi") == "hi"
    assert server.requests[0]["params"]["model"] == "gpt-test"
    assert server.requests[0]["has_auth"]
    await backend.aclose()


async def test_base_url_option_overrides_env(
    server: MockOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    backend = OpenAIModel.create_openai("gpt-test", BackendOptions(base_url=server.url))
    assert await ask(backend, "override") == "override"
    await backend.aclose()


async def test_compatible_spec_reads_provider_env(
    server: MockOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_LLM_BASE_URL", server.url)
    monkeypatch.setenv("MY_LLM_API_KEY", KEY)
    backend = OpenAIModel.create_compatible("my-llm/org/model-1", BackendOptions())
    assert backend.info.provider == "openai-api"
    assert backend.info.name == "my-llm/org/model-1"
    assert backend.info.identity == f"openai-api/my-llm/org/model-1@{server.url}"
    await ask(backend, "hi")
    assert server.requests[0]["params"]["model"] == "org/model-1"
    assert server.requests[0]["has_auth"]
    await backend.aclose()


def test_compatible_spec_needs_a_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MY_LLM_BASE_URL", raising=False)
    with pytest.raises(ConfigError, match="set MY_LLM_BASE_URL or pass --base-url"):
        OpenAIModel.create_compatible("my-llm/m", BackendOptions())


def test_compatible_spec_needs_provider_and_model() -> None:
    with pytest.raises(ConfigError, match="openai-api/<provider>/<model>"):
        OpenAIModel.create_compatible("vllm", BackendOptions())


def test_openai_url_without_key_is_config_error_naming_the_variable() -> None:
    with pytest.raises(ConfigError, match="set OPENAI_API_KEY"):
        OpenAIModel.create_openai("gpt-4o-mini", BackendOptions())


def test_identity_drops_credentials_from_the_url() -> None:
    backend = make_model("http://user:pa55@127.0.0.1:8000/v1/")
    assert backend.info.identity == "openai-api/mock/echo@http://127.0.0.1:8000/v1"
    assert "pa55" not in repr(backend)


def test_url_must_be_http() -> None:
    with pytest.raises(ConfigError, match="--base-url is not an http"):
        make_model("127.0.0.1:8000/v1")


def test_backend_settings_are_validated() -> None:
    with pytest.raises(ConfigError, match="-M timeout_s"):
        make_model("http://127.0.0.1:8000/v1", timeout_s=-1)
    with pytest.raises(ConfigError, match=r"known settings: .*max_connections"):
        make_model("http://127.0.0.1:8000/v1", retries=3)


# --- reachability ---------------------------------------------------------------------------------


async def test_check_reachable_passes_for_a_live_server(model: OpenAIModel) -> None:
    await model.check_reachable()


async def test_check_reachable_names_the_url_of_a_dead_server() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    backend = make_model(url)
    with pytest.raises(ModelError, match=re.escape(f"cannot reach {url}/models: ")):
        await backend.check_reachable()
    await backend.aclose()


# --- wire details ---------------------------------------------------------------------------------


def test_retry_after_reads_seconds_dates_and_milliseconds() -> None:
    assert parse_retry_after({"Retry-After": "2"}) == 2.0
    assert parse_retry_after({"Retry-After": "-3"}) == 0.0
    assert parse_retry_after({"retry-after-ms": "250", "Retry-After": "9"}) == 0.25
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    waited = parse_retry_after({"Retry-After": later})
    assert waited is not None and 25 < waited <= 30


def test_server_message_is_one_short_line() -> None:
    assert server_message(b'{"error": {"message": "bad\\n  model"}}') == "bad model"
    assert server_message(b"plain text") == "plain text"
    long = server_message(b"x" * 1000)
    assert len(long) <= 210 and long.endswith("...")


# --- a real server --------------------------------------------------------------------------------


@pytest.fixture
def llama_server() -> Iterator[str]:
    with serve_embedded_model() as url:
        yield url


@pytest.mark.slow
async def test_llama_cpp_server_replies_through_openai_model(llama_server: str) -> None:
    await wait_until_serving(llama_server)
    backend = OpenAIModel.create_compatible(
        "llamacpp-server/smollm2", BackendOptions(base_url=llama_server, args={"timeout_s": "60"})
    )
    await backend.check_reachable()
    completion = await backend.generate(
        [Message(role="user", content="Say hello.")], GenerateConfig(max_tokens=16)
    )
    await backend.aclose()
    assert completion.text.strip()
    assert completion.usage.completion_tokens > 0
