"""The mock server's o-series mode refuses what OpenAI's reasoning models refuse, in their words."""

import asyncio
import json
import subprocess
import sys
from typing import Any

import aiohttp
import pytest

from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig

TIMEOUT = aiohttp.ClientTimeout(total=5)
BASE = {"model": "o3", "messages": [{"role": "user", "content": "<think>a b</think> c"}]}


async def _post(url: str, **params: Any) -> tuple[int, dict[str, Any]]:
    async with (
        aiohttp.ClientSession(timeout=TIMEOUT) as client,
        client.post(f"{url}/chat/completions", json={**BASE, **params}) as response,
    ):
        return response.status, json.loads(await response.read())


async def test_max_tokens_and_temperature_0_are_refused_max_completion_tokens_taken() -> None:
    config = MockServerConfig(reasoning_api=True, thinking="hidden")
    async with MockOpenAIServer(config) as server:
        limit = await _post(server.url, max_tokens=5, temperature=1)
        cold = await _post(server.url, max_completion_tokens=5, temperature=0)
        ok = await _post(server.url, max_completion_tokens=2, temperature=1, top_p=1)
    assert limit[0] == 400 and limit[1]["error"]["param"] == "max_tokens"
    assert "Use 'max_completion_tokens' instead." in limit[1]["error"]["message"]
    assert cold[0] == 400 and cold[1]["error"]["message"].startswith(
        "Unsupported value: 'temperature' does not support 0 with this model."
    )
    status, body = ok
    assert status == 200
    # Cut at 2 words, inside the thinking: no content, the tokens reported as thinking.
    assert body["choices"][0] == {
        "index": 0,
        "message": {"role": "assistant", "content": ""},
        "finish_reason": "length",
    }
    assert body["usage"]["completion_tokens_details"] == {"reasoning_tokens": 2}


async def test_without_the_mode_max_tokens_is_taken() -> None:
    async with MockOpenAIServer() as server:
        status, _ = await _post(server.url, max_tokens=5, temperature=0)
    assert status == 200


@pytest.mark.subprocess
def test_the_command_line_turns_the_mode_on() -> None:
    command = [sys.executable, "-m", "rulebench.testing.mock_openai", "--port", "0"]
    command += ["--reasoning-api", "--thinking", "hidden"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            url = process.stdout.readline().strip()
            status, body = asyncio.run(_post(url, max_tokens=5))
        finally:
            process.terminate()
        assert process.wait(timeout=10) == 0
    assert status == 400 and body["error"]["code"] == "unsupported_parameter"
