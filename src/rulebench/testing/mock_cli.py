"""The mock OpenAI server's command line: serve until killed, printing the base URL first.

For benchmarks and soak tests that run the server in another process
(`python -m rulebench.testing.mock_openai`, which calls `main` here).
"""

import argparse
import asyncio
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import get_args

from rulebench.testing.mock_prefix_cache import CacheReportStyle
from rulebench.testing.mock_replies import ThinkingStyle
from rulebench.testing.mock_server import MockOpenAIServer, MockServerConfig


async def _serve_until_stopped(config: MockServerConfig) -> None:
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stopped.set)
    async with MockOpenAIServer(config) as server:
        print(server.url, flush=True)  # noqa: T201 - the one line a parent process reads
        await stopped.wait()


def main(argv: Sequence[str] | None = None) -> None:
    """Serve from the command line until SIGINT or SIGTERM (for benchmarks in another process)."""
    parser = argparse.ArgumentParser(
        prog="python -m rulebench.testing.mock_openai",
        description="Fault-injecting OpenAI-compatible server; prints its base URL, then serves.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--log", type=Path, help="append one JSON line per chat request")
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument("--fault-seed", type=int, default=0)
    parser.add_argument(
        "--max-concurrent", type=int, default=None, help="requests answered at once; others queue"
    )
    parser.add_argument("--thinking", choices=get_args(ThinkingStyle), default="tags")
    parser.add_argument(
        "--reasoning-api", action="store_true", help="refuse max_tokens and temperature as o3"
    )
    parser.add_argument(
        "--prefix-cache",
        choices=get_args(CacheReportStyle),
        default="off",
        help="report cached prompt tokens as llama.cpp (timings) or vLLM (usage) does",
    )
    parser.add_argument("--cache-slots", type=int, default=4, help="prompts the cache keeps")
    args = parser.parse_args(argv)
    config = MockServerConfig(
        host=args.host,
        port=args.port,
        latency_s=args.latency_ms / 1000,
        log_path=args.log,
        fault_rate=args.fault_rate,
        fault_seed=args.fault_seed,
        keep_log=False,
        max_concurrent=args.max_concurrent,
        thinking=args.thinking,
        reasoning_api=args.reasoning_api,
        prefix_cache=args.prefix_cache,
        cache_slots=args.cache_slots,
    )
    asyncio.run(_serve_until_stopped(config))
