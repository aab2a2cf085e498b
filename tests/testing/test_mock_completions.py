"""The mock server's /v1/completions route and its capacity limit, through a bare aiohttp client."""

import asyncio
import json

import aiohttp
from pydantic import JsonValue

from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig

from tests.stored_json import json_at, json_list, json_object

TIMEOUT = aiohttp.ClientTimeout(total=5)


async def complete(url: str, **body: JsonValue) -> dict[str, JsonValue]:
    async with (
        aiohttp.ClientSession(timeout=TIMEOUT) as client,
        client.post(f"{url}/completions", json={"model": "m", **body}) as response,
    ):
        assert response.status == 200
        return json_object(json.loads(await response.read()))


async def test_completions_echo_the_prompt_cut_at_the_first_stop() -> None:
    async with MockOpenAIServer() as server:
        data = await complete(server.url, prompt="User: hi\n\nAssistant:", stop=["\n\nA", "hi"])
    (choice,) = json_list(data["choices"])
    assert json_at(choice, "text") == " User: "
    assert json_at(choice, "finish_reason") == "stop"
    # Words split on single spaces, as chat replies are counted: "", "User:", "".
    assert data["usage"] == {"prompt_tokens": 3, "completion_tokens": 3, "total_tokens": 6}
    (request,) = server.requests
    assert request["api"] == "completions"
    assert request["messages"] == [{"role": "user", "content": "User: hi\n\nAssistant:"}]
    assert request["params"] == {"model": "m", "stop": ["\n\nA", "hi"]}


async def test_completions_take_fault_markers_and_a_reply_function() -> None:
    async with MockOpenAIServer(completion_fn=lambda body: " a b c d") as server:
        data = await complete(server.url, prompt="p", max_tokens=2)
        async with (
            aiohttp.ClientSession(timeout=TIMEOUT) as client,
            client.post(f"{server.url}/completions", json={"prompt": "[[fault:503]]"}) as reply,
        ):
            assert reply.status == 503
    (choice,) = json_list(data["choices"])
    assert (json_at(choice, "text"), json_at(choice, "finish_reason")) == (" a", "length")


async def test_max_concurrent_queues_what_is_beyond_capacity() -> None:
    async with MockOpenAIServer(MockServerConfig(latency_s=0.05, max_concurrent=3)) as server:
        await asyncio.gather(*(complete(server.url, prompt=f"p{i}") for i in range(10)))
    assert len(server.requests) == 10
    assert server.max_in_flight == 3
