"""A base URL with a query (`/v1?api_key=...`): requests keep it after their path, texts hide it."""

import re
from collections.abc import AsyncIterator

import pytest

from rulebench.core.errors import ModelError
from rulebench.core.messages import GenerateConfig, Message
from rulebench.models.base import BackendOptions
from rulebench.models.openai.backend import OpenAIModel
from rulebench.testing.mock_server import MockOpenAIServer

from tests.llama_server import free_port

KEY = "sk-query-key-5c02e9a1f7"
FAST = {"initial_backoff_s": "0.01", "max_backoff_s": "0.05", "max_retries": "1"}


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MOCK_API_KEY", "MOCK_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
async def server() -> AsyncIterator[MockOpenAIServer]:
    async with MockOpenAIServer() as mock:
        yield mock


def make_model(url: str, api: str = "chat") -> OpenAIModel:
    args = {**FAST, "api": api}
    return OpenAIModel.create_compatible("mock/echo", BackendOptions(base_url=url, args=args))


async def ask(backend: OpenAIModel, text: str) -> str | None:
    completion = await backend.generate([Message(role="user", content=text)], GenerateConfig())
    return completion.endpoint


@pytest.mark.parametrize(
    ("api", "path"), [("chat", "/chat/completions"), ("completions", "/completions")]
)
async def test_the_request_goes_to_the_endpoint_path_with_the_query_after_it(
    server: MockOpenAIServer, api: str, path: str
) -> None:
    backend = make_model(f"{server.url}/?api_key={KEY}&v=2", api)
    await backend.check_reachable()
    endpoint = await ask(backend, "hello")
    await backend.aclose()
    assert [r["path"] for r in server.requests] == [f"/v1{path}?api_key={KEY}&v=2"]
    assert endpoint == f"{server.url}?api_key=***&v=***"  # what each result stores
    assert KEY not in backend.info.identity and KEY not in repr(backend)


async def test_a_failing_server_is_named_without_the_query_key(server: MockOpenAIServer) -> None:
    backend = make_model(f"{server.url}?api_key={KEY}")
    with pytest.raises(ModelError) as caught:
        await ask(backend, "[[fault:500]]")
    await backend.aclose()
    assert f"({server.url}?api_key=***)" in str(caught.value)
    assert KEY not in str(caught.value)


async def test_a_dead_server_is_named_by_its_models_url_without_the_query_key() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    backend = make_model(f"{url}?api_key={KEY}")
    with pytest.raises(ModelError, match=re.escape(f"cannot reach {url}/models?api_key=***: ")):
        await backend.check_reachable()
    await backend.aclose()
