"""The mock OpenAI server, seen through a bare aiohttp client: replies, faults, log, run modes."""

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from rulebench.testing.faults import FAULT_KINDS, FaultPlan, parse_fault
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig, serve_in_thread

TIMEOUT = aiohttp.ClientTimeout(total=5)


@pytest.fixture
async def client() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=TIMEOUT) as session:
        yield session


def chat_body(text: str, **params: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": text}], **params}


async def post(
    client: aiohttp.ClientSession, url: str, text: str, **params: Any
) -> tuple[int, dict[str, str], bytes]:
    async with client.post(f"{url}/chat/completions", json=chat_body(text, **params)) as response:
        return response.status, dict(response.headers), await response.read()


async def test_echoes_the_last_user_message_with_usage(client: aiohttp.ClientSession) -> None:
    async with MockOpenAIServer() as server:
        status, _, raw = await post(client, server.url, "hello mock world")
    data = json.loads(raw)
    assert status == 200
    assert data["choices"][0]["message"] == {"role": "assistant", "content": "hello mock world"}
    assert data["choices"][0]["finish_reason"] == "stop"
    assert data["usage"] == {"prompt_tokens": 3, "completion_tokens": 3, "total_tokens": 6}


async def test_max_tokens_truncates_the_reply(client: aiohttp.ClientSession) -> None:
    async with MockOpenAIServer() as server:
        _, _, raw = await post(client, server.url, "a b c d", max_tokens=2)
    choice = json.loads(raw)["choices"][0]
    assert (choice["message"]["content"], choice["finish_reason"]) == ("a b", "length")


async def test_reply_fn_replaces_the_echo(client: aiohttp.ClientSession) -> None:
    async with MockOpenAIServer(reply_fn=lambda body: f"model={body['model']}") as server:
        _, _, raw = await post(client, server.url, "ignored")
    assert json.loads(raw)["choices"][0]["message"]["content"] == "model=m"


async def test_models_endpoint_lists_a_model(client: aiohttp.ClientSession) -> None:
    async with MockOpenAIServer() as server, client.get(f"{server.url}/models") as response:
        assert response.status == 200
        assert json.loads(await response.read())["data"]


async def test_latency_delays_every_answer(client: aiohttp.ClientSession) -> None:
    async with MockOpenAIServer(MockServerConfig(latency_s=0.2)) as server:
        start = time.perf_counter()
        await post(client, server.url, "wait")
    assert time.perf_counter() - start >= 0.2


async def test_counted_fault_fails_the_first_attempts_of_that_conversation_only(
    client: aiohttp.ClientSession,
) -> None:
    async with MockOpenAIServer() as server:
        first = [(await post(client, server.url, "[[fault:500x2]] a"))[0] for _ in range(3)]
        other = (await post(client, server.url, "[[fault:500x2]] b"))[0]
    assert first == [500, 500, 200]
    assert other == 500
    assert [r["attempt"] for r in server.requests] == [1, 2, 3, 1]


async def test_uncounted_fault_never_clears(client: aiohttp.ClientSession) -> None:
    async with MockOpenAIServer() as server:
        statuses = [(await post(client, server.url, "[[fault:502]]"))[0] for _ in range(3)]
    assert statuses == [502, 502, 502]


@pytest.mark.parametrize(("kind", "status"), [("500", 500), ("503", 503), ("400", 400)])
async def test_status_faults_send_openai_error_bodies(
    client: aiohttp.ClientSession, kind: str, status: int
) -> None:
    async with MockOpenAIServer() as server:
        got, _, raw = await post(client, server.url, f"[[fault:{kind}]]")
    assert got == status
    assert "injected fault" in json.loads(raw)["error"]["message"]


@pytest.mark.parametrize(("kind", "retry_after"), [("429", "1"), ("429r0", "0")])
async def test_rate_limit_faults_send_retry_after(
    client: aiohttp.ClientSession, kind: str, retry_after: str
) -> None:
    async with MockOpenAIServer() as server:
        status, headers, _ = await post(client, server.url, f"[[fault:{kind}]]")
    assert (status, headers["Retry-After"]) == (429, retry_after)


async def test_malformed_fault_sends_broken_json(client: aiohttp.ClientSession) -> None:
    async with MockOpenAIServer() as server:
        status, _, raw = await post(client, server.url, "[[fault:malformed]]")
    assert status == 200
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)


async def test_nochoices_fault_sends_json_without_choices(client: aiohttp.ClientSession) -> None:
    async with MockOpenAIServer() as server:
        status, _, raw = await post(client, server.url, "[[fault:nochoices]]")
    assert status == 200
    assert "choices" not in json.loads(raw)


async def test_malformedkey_fault_echoes_the_authorization_header_in_broken_json(
    client: aiohttp.ClientSession,
) -> None:
    async with MockOpenAIServer() as server:
        url = f"{server.url}/chat/completions"
        headers = {"Authorization": "Bearer sk-echo-me"}
        async with client.post(url, json=chat_body("[[fault:malformedkey]]"), headers=headers) as r:
            status, raw = r.status, await r.read()
    assert status == 200 and b"Bearer sk-echo-me" in raw
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)


async def test_surrogate_fault_ends_the_content_with_a_lone_surrogate_escape(
    client: aiohttp.ClientSession,
) -> None:
    async with MockOpenAIServer() as server:
        status, _, raw = await post(client, server.url, "hi [[fault:surrogate]]")
    assert status == 200 and raw.isascii() and b"\\ud83d" in raw
    content = json.loads(raw)["choices"][0]["message"]["content"]
    assert content.endswith("\ud83d")
    with pytest.raises(UnicodeEncodeError):
        content.encode("utf-8")


async def test_badutf8_fault_sends_invalid_utf8_in_a_body_that_differs_every_time(
    client: aiohttp.ClientSession,
) -> None:
    async with MockOpenAIServer() as server:
        bodies = [(await post(client, server.url, "hi [[fault:badutf8]]"))[2] for _ in range(2)]
    assert b"\xff\xfe" in bodies[0] and bodies[0] != bodies[1]
    with pytest.raises(UnicodeDecodeError):
        bodies[0].decode("utf-8")
    assert bodies[0].replace(b"\xff\xfe", b"").decode().startswith('{"id": "chatcmpl-')


@pytest.mark.parametrize(("kind", "declared"), [("huge", True), ("hugestream", False)])
async def test_huge_faults_send_megabytes_with_or_without_a_length(
    client: aiohttp.ClientSession, kind: str, declared: bool
) -> None:
    async with MockOpenAIServer(MockServerConfig(huge_bytes=2_000_000)) as server:
        status, headers, raw = await post(client, server.url, f"[[fault:{kind}]]")
    assert status == 200 and len(raw) > 2_000_000
    assert ("Content-Length" in headers) == declared
    assert len(json.loads(raw)["choices"][0]["message"]["content"]) > 2_000_000


async def test_drop_fault_closes_the_connection(client: aiohttp.ClientSession) -> None:
    async with MockOpenAIServer() as server:
        with pytest.raises(aiohttp.ServerDisconnectedError):
            await post(client, server.url, "[[fault:drop]]")


async def test_slow_fault_outlasts_a_client_timeout_and_shutdown_cancels_it() -> None:
    timeout = aiohttp.ClientTimeout(total=0.2)
    async with MockOpenAIServer() as server, aiohttp.ClientSession(timeout=timeout) as client:
        with pytest.raises(asyncio.TimeoutError):
            await post(client, server.url, "[[fault:slow]]")
    assert server.in_flight == 0  # the 600 s handler was cancelled, not waited for


async def test_unknown_fault_kind_is_a_400_naming_the_known_ones(
    client: aiohttp.ClientSession,
) -> None:
    async with MockOpenAIServer() as server:
        status, _, raw = await post(client, server.url, "[[fault:teapot]]")
    assert status == 400
    assert "unknown fault kind 'teapot'" in json.loads(raw)["error"]["message"]


def test_parse_fault_reads_kind_and_count() -> None:
    assert parse_fault("no marker") is None
    assert parse_fault("x [[fault:429r0x3]] y") == ("429r0", 3)
    assert parse_fault("[[fault:slow]]") == ("slow", None)
    assert all(parse_fault(f"[[fault:{kind}]]") == (kind, None) for kind in FAULT_KINDS)
    with pytest.raises(ValueError, match="unknown fault kind"):
        parse_fault("[[fault:418]]")


def test_fault_plan_counts_attempts_per_conversation() -> None:
    plan = FaultPlan()
    marked = [{"role": "user", "content": "[[fault:drop x1]]"}]
    assert [plan.choose([{"role": "user", "content": "[[fault:dropx1]]"}]) for _ in range(2)] == [
        ("drop", 1),
        (None, 2),
    ]
    with pytest.raises(ValueError, match="unknown fault kind 'drop '"):
        plan.choose(marked)


async def test_api_key_is_required_when_configured(client: aiohttp.ClientSession) -> None:
    async with MockOpenAIServer(MockServerConfig(require_api_key="sk-right")) as server:
        url = f"{server.url}/chat/completions"
        statuses = []
        for headers in (
            {},
            {"Authorization": "Bearer sk-wrong"},
            {"Authorization": "Bearer sk-right"},
        ):
            async with client.post(url, json=chat_body("hi"), headers=headers) as response:
                statuses.append(response.status)
    assert statuses == [401, 401, 200]
    assert [r["has_auth"] for r in server.requests] == [False, True, True]


async def test_request_log_is_kept_in_memory_and_as_jsonl(
    client: aiohttp.ClientSession, tmp_path: Path
) -> None:
    log = tmp_path / "requests.jsonl"
    async with MockOpenAIServer(MockServerConfig(log_path=log)) as server:
        await post(client, server.url, "one", temperature=0.0)
        await post(client, server.url, "[[fault:503x1]] two")
        # Flushed per request: readable while the server still runs.
        lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines == server.requests
    assert [r["messages"][-1]["content"] for r in lines] == ["one", "[[fault:503x1]] two"]
    assert [r["fault"] for r in lines] == [None, "503"]
    assert lines[0]["params"] == {"model": "m", "temperature": 0.0}


async def test_random_faults_follow_the_seed_not_the_arrival_order(
    client: aiohttp.ClientSession,
) -> None:
    config = MockServerConfig(fault_rate=0.5, fault_seed=3, fault_kinds=("500", "503"))
    texts = [f"q{i}" for i in range(40)]
    runs = []
    for order in (texts, texts[::-1]):
        async with MockOpenAIServer(config) as server:
            for text in order:
                await post(client, server.url, text)
        runs.append({r["messages"][-1]["content"]: r["fault"] for r in server.requests})
    assert runs[0] == runs[1]
    faults = [fault for fault in runs[0].values() if fault is not None]
    assert 8 <= len(faults) <= 32
    assert set(faults) <= {"500", "503"}


async def test_in_flight_requests_are_counted(client: aiohttp.ClientSession) -> None:
    async with MockOpenAIServer(MockServerConfig(latency_s=0.1)) as server:
        await asyncio.gather(*(post(client, server.url, f"q{i}") for i in range(5)))
    assert server.max_in_flight == 5
    assert server.in_flight == 0


def test_thread_mode_serves_synchronous_callers() -> None:
    async def ask(url: str) -> int:
        async with aiohttp.ClientSession(timeout=TIMEOUT) as client:
            return (await post(client, url, "from another loop"))[0]

    with serve_in_thread(MockServerConfig()) as server:
        assert server.url.startswith("http://127.0.0.1:")
        assert asyncio.run(ask(server.url)) == 200
    assert len(server.requests) == 1


@pytest.mark.subprocess
def test_module_mode_prints_its_url_and_serves_until_terminated(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    command = [sys.executable, "-m", "rulebench.testing.mock_openai", "--port", "0"]
    command += ["--latency-ms", "10", "--log", str(log)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            url = process.stdout.readline().strip()
            assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
            statuses = [asyncio.run(post_once(url)), asyncio.run(post_once(url))]
        finally:
            process.terminate()
        assert process.wait(timeout=10) == 0
    assert statuses == [500, 200]
    assert [json.loads(line)["fault"] for line in log.read_text().splitlines()] == ["500", None]


async def post_once(url: str) -> int:
    async with aiohttp.ClientSession(timeout=TIMEOUT) as client:
        return (await post(client, url, "[[fault:500x1]] subprocess"))[0]
