"""Every attempt counted, and timeouts re-sent with a growing timeout, against the mock server."""

import logging
from pathlib import Path

import pytest

from rulebench.core.errors import ModelError
from rulebench.core.messages import GenerateConfig, Message
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.models.base import BackendOptions
from rulebench.models.openai.backend import OpenAIModel
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig

from tests.conftest import EchoTask

FAST = {"initial_backoff_s": "0.01", "max_backoff_s": "0.05"}


def make_model(url: str, **args: object) -> OpenAIModel:
    settings = {**FAST, **{key: str(value) for key, value in args.items()}}
    return OpenAIModel.create_compatible("mock/echo", BackendOptions(base_url=url, args=settings))


def user(text: str) -> list[Message]:
    return [Message(role="user", content=text)]


async def test_server_slower_than_first_timeout_is_given_a_longer_one() -> None:
    # 0.3 s of work: over the first timeout (0.2 s), under the doubled one (0.4 s).
    async with MockOpenAIServer(MockServerConfig(latency_s=0.3)) as server:
        model = make_model(server.url, timeout_s=0.2)
        completion = await model.generate(user("hello there"), GenerateConfig())
        await model.aclose()
    assert completion.text == "hello there"
    assert completion.attempts == 2
    assert len(server.requests) == 2
    assert model.run_notes == (
        "1 request timed out after 0.2 s or more: the server is slower than -M timeout_s=0.2; "
        "raise it",
    )


async def test_server_slower_than_every_timeout_fails_naming_them(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with MockOpenAIServer(MockServerConfig(latency_s=2.0)) as server:
        model = make_model(server.url, timeout_s=0.1, max_timeout_s=0.4, max_retries=6)
        with (
            caplog.at_level(logging.WARNING, logger="rulebench.models.openai.attempts"),
            pytest.raises(ModelError) as caught,
        ):
            await model.generate(user("hello"), GenerateConfig())
        await model.aclose()
    message = str(caught.value)
    assert message.startswith(
        "openai-api/mock/echo: no reply within 0.1 s, 0.2 s and 0.4 s after 3 attempts ("
    )
    assert "slower than -M timeout_s=0.1" in message
    # Stopped at the cap, well before max_retries: each re-send was more work for the server.
    assert len(server.requests) == 3
    assert caught.value.kind == "no reply within the timeout"
    warnings = [r.getMessage() for r in caught_warnings(caplog)]
    assert len(warnings) == 1 and "1 request timed out after 0.1 s" in warnings[0]
    assert model.run_notes[-1].startswith("3 requests timed out after 0.1 s or more")


def caught_warnings(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno == logging.WARNING]


async def test_errors_are_retried_as_before_and_counted() -> None:
    async with MockOpenAIServer() as server:
        model = make_model(server.url, max_retries=3)
        completion = await model.generate(user("q [[fault:503x2]]"), GenerateConfig())
        await model.aclose()
    assert completion.attempts == 3
    assert model.run_notes == ()  # no timeout: nothing to say


async def test_tokens_of_a_reply_that_was_retried_are_counted() -> None:
    async with MockOpenAIServer() as server:
        model = make_model(server.url)
        text = "four words here [[fault:nochoicesx1]]"
        completion = await model.generate(user(text), GenerateConfig())
        await model.aclose()
    assert completion.attempts == 2
    assert completion.retried_usage.prompt_tokens == completion.usage.prompt_tokens > 0
    assert completion.retried_usage.completion_tokens == 0


async def test_stored_result_counts_attempts_beside_calls(tmp_path: Path) -> None:
    store = Store(tmp_path / "store.sqlite")
    async with MockOpenAIServer(MockServerConfig(slow_s=30)) as server:
        model = make_model(server.url, timeout_s=0.2)
        task = EchoTask(n=2, prefix="[[fault:slowx1]] question")
        spec = RunSpec(task=task.name, model="openai-api/mock/echo")
        report = await Runner(store).run(task, model, spec)
        await model.aclose()
    results = list(store.iter_results(report.run.id))
    store.close()
    assert [(r.calls, r.attempts, r.error) for r in results] == [(1, 2, None), (1, 2, None)]
    assert report.run.notes["backend_notes"] == [
        "2 requests timed out after 0.2 s or more: the server is slower than -M "
        "timeout_s=0.2; raise it"
    ]


async def test_cached_replies_send_no_attempts(tmp_path: Path) -> None:
    store = Store(tmp_path / "store.sqlite")
    async with MockOpenAIServer() as server:
        model = make_model(server.url)
        task = EchoTask(n=1)
        spec = RunSpec(task=task.name, model="openai-api/mock/echo")
        await Runner(store).run(task, model, spec)
        again = await Runner(store).run(task, model, spec)
        await model.aclose()
    results = list(store.iter_results(again.run.id))
    store.close()
    assert [(r.calls, r.cache_hits, r.attempts) for r in results] == [(1, 1, 0)]


async def test_a_failed_item_stores_the_attempts_its_call_sent(tmp_path: Path) -> None:
    store = Store(tmp_path / "store.sqlite")
    async with MockOpenAIServer(MockServerConfig(latency_s=2.0)) as server:
        model = make_model(server.url, timeout_s=0.1, max_timeout_s=0.2)
        task = EchoTask(n=1)
        spec = RunSpec(task=task.name, model="openai-api/mock/echo")
        report = await Runner(store).run(task, model, spec)
        await model.aclose()
    [result] = store.iter_results(report.run.id)
    store.close()
    assert result.error is not None and "no reply within 0.1 s and 0.2 s" in result.error
    assert (result.calls, result.attempts) == (0, 2)
