"""OpenAIModel against replies and settings that once crashed or leaked: each is one clear line.

Echoed keys, lone surrogates, huge bodies, non-finite settings: the mock server injects each
(see rulebench.testing.mock_server), the backend must turn it into a ModelError or ConfigError
naming the cause, or a reply with a warning, never a traceback or a leaked secret.
"""

import base64
import logging
from collections.abc import AsyncIterator

import pytest

from rulebench.core.errors import ConfigError, ModelError, TransientModelError
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.core.text import surrogate_warning
from rulebench.models.base import BackendOptions
from rulebench.models.openai.backend import OpenAIConfig, OpenAIModel
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig

from tests.models.retry_log import waits_logged

FAST = {"initial_backoff_s": "0.01", "max_backoff_s": "0.05", "max_retry_after_s": "5"}
KEY = "sk-bad-replies-9f8e7d6c5b"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MOCK_API_KEY", "MOCK_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
async def server() -> AsyncIterator[MockOpenAIServer]:
    async with MockOpenAIServer(MockServerConfig(huge_bytes=3 * 1024 * 1024)) as mock:
        yield mock


def make_model(url: str, **args: object) -> OpenAIModel:
    settings = {**FAST, **{key: str(value) for key, value in args.items()}}
    return OpenAIModel.create_compatible("mock/echo", BackendOptions(base_url=url, args=settings))


async def ask(backend: OpenAIModel, text: str) -> Completion:
    try:
        return await backend.generate([Message(role="user", content=text)], GenerateConfig())
    finally:
        await backend.aclose()


# --- secrets in server texts ----------------------------------------------------------------------


async def test_a_malformed_reply_echoing_the_key_is_scrubbed_everywhere(
    monkeypatch: pytest.MonkeyPatch, server: MockOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("MOCK_API_KEY", KEY)
    with pytest.raises(ModelError, match=r"malformed reply after 2 attempts") as caught:
        await ask(make_model(server.url, max_retries=1), "[[fault:malformedkey]]")
    assert server.requests[0]["has_auth"]
    assert "Bearer ***" in str(caught.value)  # the echo is there, the key is not
    shown = [str(caught.value), *(record.getMessage() for record in caplog.records)]
    assert any("retrying" in text for text in shown)
    assert not [text for text in shown if KEY in text]


async def test_url_credentials_echoed_as_basic_auth_are_scrubbed(
    server: MockOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    url = server.url.replace("http://", "http://user:hunter2@")
    with pytest.raises(ModelError) as caught:
        await ask(make_model(url, max_retries=1), "[[fault:malformedkey]]")
    basic = base64.b64encode(b"user:hunter2").decode()
    assert server.requests[0]["has_auth"]  # aiohttp sent the URL's credentials
    assert "Basic ***" in str(caught.value)
    shown = [str(caught.value), *(record.getMessage() for record in caplog.records)]
    assert not [text for text in shown if basic in text or "hunter2" in text]


# --- lone surrogates ------------------------------------------------------------------------------


async def test_a_reply_ending_in_half_an_emoji_is_repaired_with_a_warning(
    server: MockOpenAIServer,
) -> None:
    completion = await ask(make_model(server.url), "hi [[fault:surrogate]]")
    assert completion.text == "hi [[fault:surrogate]]\ufffd"
    assert completion.warnings == (surrogate_warning(1, "reply"),)
    completion.model_dump_json().encode("utf-8")


# --- reply size -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["huge", "hugestream"])
async def test_a_body_over_max_reply_bytes_fails_at_once_naming_the_limit(
    server: MockOpenAIServer, kind: str
) -> None:
    backend = make_model(server.url, max_reply_bytes=100_000)
    with pytest.raises(
        ModelError, match=r"larger than max_reply_bytes \(100,000 bytes\)"
    ) as caught:
        await ask(backend, f"[[fault:{kind}]]")
    assert "-M max_reply_bytes=" in str(caught.value)
    assert not isinstance(caught.value, TransientModelError)
    assert len(server.requests) == 1  # the same request would get the same reply: no retry


@pytest.mark.parametrize("kind", ["huge", "hugestream"])
async def test_a_reply_over_max_reply_chars_is_cut_with_a_warning(
    server: MockOpenAIServer, kind: str
) -> None:
    completion = await ask(make_model(server.url, max_reply_chars=1000), f"[[fault:{kind}]]")
    assert len(completion.text) == 1000
    assert completion.warnings == ("reply cut at 1000 characters (max_reply_chars)",)


async def test_default_limits_let_a_few_megabytes_through(server: MockOpenAIServer) -> None:
    completion = await ask(make_model(server.url), "[[fault:hugestream]]")
    assert len(completion.text) == 1_000_000 and completion.warnings
    assert OpenAIConfig().max_reply_bytes == 8 * 1024 * 1024


# --- settings -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("timeout_s", "inf"),
        ("timeout_s", "nan"),
        ("timeout_s", "3601"),
        ("initial_backoff_s", "1e308"),
        ("max_backoff_s", "inf"),
        ("max_backoff_s", "601"),
        ("max_retry_after_s", "-inf"),
        ("max_retry_after_s", "1e9"),
        ("max_reply_bytes", "10"),
    ],
)
def test_non_finite_and_absurd_settings_are_config_errors(setting: str, value: str) -> None:
    with pytest.raises(ConfigError, match=rf"-M {setting}: "):
        make_model("http://127.0.0.1:8000/v1", **{setting: value})


async def test_the_wait_between_attempts_is_bounded_by_max_backoff_s(
    server: MockOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    backend = make_model(server.url, initial_backoff_s=60, max_backoff_s=0.05)
    with caplog.at_level(logging.DEBUG, logger="rulebench.models.openai.backend"):
        completion = await ask(backend, "[[fault:500x2]]")
    assert completion.text == "[[fault:500x2]]"
    # Two waits computed at the cap, not 60 s and more.
    assert waits_logged(caplog) == [0.05, 0.05]


@pytest.mark.parametrize(
    "config",
    [{"temperature": float("inf")}, {"temperature": float("nan")}, {"temperature": 101}],
)
def test_generate_config_rejects_non_finite_and_absurd_values(config: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="temperature"):
        GenerateConfig.model_validate(config)
