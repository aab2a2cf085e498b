"""`--thinking on|off` against a real llama.cpp server (llama-cpp-python's), embedded model.

The server takes chat_template_kwargs and goes on answering (a server that reads them applies
them to its template). Between rulebench and the server sits a pass-through proxy on 127.0.0.1
that only records each request body, so what is checked is what really went over the wire.
"""

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.store.database import Store

from tests.llama_server import free_port, serve_embedded_model, wait_until_serving

pytestmark = [pytest.mark.slow, pytest.mark.subprocess]  # spawns llama_cpp.server
runner = CliRunner()


@contextmanager
def recording_proxy(upstream: str) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Forward every request to `upstream` (a /v1 URL); yields the proxy's /v1 URL and the
    JSON bodies of the chat completion requests it forwarded, in order."""
    bodies: list[dict[str, Any]] = []
    loop = asyncio.new_event_loop()
    port = free_port()

    async def forward(request: web.Request) -> web.Response:
        payload = await request.read()
        if request.path.endswith("/chat/completions"):
            bodies.append(json.loads(payload))
        target = upstream.removesuffix("/v1") + request.path_qs
        async with (
            aiohttp.ClientSession() as session,
            session.request(
                request.method, target, data=payload, headers={"Content-Type": "application/json"}
            ) as reply,
        ):
            return web.Response(
                body=await reply.read(), status=reply.status, content_type=reply.content_type
            )

    async def start() -> web.AppRunner:
        proxy = web.Application()
        proxy.router.add_route("*", "/{tail:.*}", forward)
        site_runner = web.AppRunner(proxy)
        await site_runner.setup()
        await web.TCPSite(site_runner, "127.0.0.1", port).start()
        return site_runner

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    site_runner = asyncio.run_coroutine_threadsafe(start(), loop).result(timeout=10)
    try:
        yield f"http://127.0.0.1:{port}/v1", bodies
    finally:
        asyncio.run_coroutine_threadsafe(site_runner.cleanup(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


@pytest.fixture(scope="module")
def proxied_server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    with serve_embedded_model() as url:
        asyncio.run(wait_until_serving(url))
        with recording_proxy(url) as proxied:
            yield proxied


@pytest.mark.parametrize("switch", ["off", "on"])
def test_the_thinking_switch_reaches_a_real_llama_cpp_server(
    switch: str, proxied_server: tuple[str, list[dict[str, Any]]], tmp_path: Path
) -> None:
    url, bodies = proxied_server
    bodies.clear()
    store = tmp_path / "s.sqlite"
    args = ["run", "smoke", "-m", "openai-api/llamacpp/smollm2", "--base-url", url]
    args += ["--thinking", switch, "--max-tokens", "8", "--store", str(store)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    with Store(store) as db:
        [run] = db.list_runs()
        results = list(db.iter_results(run.id))
    assert run.status == "completed"
    assert results and all(r.error is None and r.reply is not None for r in results)
    assert bodies  # every reply was asked for through the proxy
    expected = {"enable_thinking": switch == "on"}
    assert all(body["chat_template_kwargs"] == expected for body in bodies)
