"""Base URLs and keys of OpenAI-compatible models: malformed URLs, credentials, redaction."""

import base64

import pytest

from rulebench.core.credentials import redact_url, scrub_secrets
from rulebench.core.errors import ConfigError
from rulebench.models.base import BackendOptions
from rulebench.models.openai.endpoint import Endpoint, resolve_endpoint

KEY = "sk-endpoint-7d1e"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MOCK_API_KEY", "MOCK_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def resolve(url: str) -> Endpoint:
    return resolve_endpoint("openai-api", "mock/echo", "echo", BackendOptions(base_url=url))


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://[::1", "Invalid IPv6 URL"),
        ("http://127.0.0.1:99999/v1", "Port out of range"),
        ("http://127.0.0.1:port/v1", "Port could not be cast"),
        ("http://user:hunter2@[::1", "Invalid IPv6 URL"),
    ],
)
def test_malformed_url_is_a_config_error_naming_the_option(url: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=rf"--base-url is not a valid URL \({problem}") as caught:
        resolve(url)
    assert "hunter2" not in str(caught.value)


def test_malformed_url_from_the_environment_names_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MOCK_BASE_URL", "http://h:70000")
    with pytest.raises(ConfigError, match="MOCK_BASE_URL is not a valid URL"):
        resolve_endpoint("openai-api", "mock/echo", "echo", BackendOptions())


def test_url_credentials_with_an_api_key_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MOCK_API_KEY", KEY)
    with pytest.raises(ConfigError, match=r"credentials .* and MOCK_API_KEY is set") as caught:
        resolve("http://user:hunter2@127.0.0.1:8000/v1")
    assert "hunter2" not in str(caught.value) and KEY not in str(caught.value)


def test_url_credentials_alone_are_kept_for_the_request_but_not_shown() -> None:
    endpoint = resolve("http://user:hunter2@127.0.0.1:8000/v1")
    assert endpoint.base_url == "http://user:hunter2@127.0.0.1:8000/v1"
    assert endpoint.shown_url == "http://127.0.0.1:8000/v1"
    assert "hunter2" not in repr(endpoint)


def test_a_stored_url_with_redacted_credentials_is_refused() -> None:
    stored = redact_url("http://user:hunter2@127.0.0.1:8000/v1")
    with pytest.raises(ConfigError, match="had credentials, which are never stored: pass --base"):
        resolve(stored)


def test_secrets_cover_key_password_and_basic_auth() -> None:
    endpoint = resolve("http://user:p%40ss@127.0.0.1:8000/v1")
    basic = base64.b64encode(b"user:p@ss").decode()
    assert set(endpoint.secrets) == {"p%40ss", "p@ss", basic}
    text = f"you sent Basic {basic} with p@ss"
    assert scrub_secrets(text, endpoint.secrets) == "you sent Basic *** with ***"


QUERY_KEY = "sk-query-3b9e51d07c"


def test_a_query_key_is_kept_for_the_request_but_not_shown() -> None:
    endpoint = resolve(f"http://127.0.0.1:8000/v1/?api_key={QUERY_KEY}")
    assert endpoint.base_url == f"http://127.0.0.1:8000/v1?api_key={QUERY_KEY}"
    assert endpoint.url("/models") == f"http://127.0.0.1:8000/v1/models?api_key={QUERY_KEY}"
    assert endpoint.shown_url == "http://127.0.0.1:8000/v1?api_key=***"
    assert QUERY_KEY not in repr(endpoint)
    assert scrub_secrets(f"bad key {QUERY_KEY}", endpoint.secrets) == "bad key ***"


def test_a_stored_url_with_redacted_query_values_is_refused() -> None:
    stored = redact_url(f"http://127.0.0.1:8000/v1?api_key={QUERY_KEY}")
    with pytest.raises(ConfigError, match="had a query or fragment, whose values are never st"):
        resolve(stored)


def test_a_malformed_url_is_refused_without_its_query_key() -> None:
    with pytest.raises(ConfigError, match="not a valid URL") as caught:
        resolve(f"http://127.0.0.1:99999/v1?api_key={QUERY_KEY}")
    assert QUERY_KEY not in str(caught.value) and "api_key=***" in str(caught.value)
