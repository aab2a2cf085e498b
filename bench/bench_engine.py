"""Engine throughput, latency hiding and memory against the local mock OpenAI server.

Prints, for the figures the foundation issue asks for:
  1. 5,000 items at concurrency 64, zero latency: rulebench items/s (results stored) vs a bare
     asyncio+aiohttp loop's requests/s on the same server, and the ratio (target >= 0.5).
  2. 500 items at concurrency 64 with 200 ms server latency: wall time vs the ideal
     ceil(N/C) x latency (target within 1.3x).
  3. 50,000 items: peak RSS vs the 5,000-item run (target: no more than 100 MB above).
Each measurement runs in a fresh subprocess (clean peak RSS); the server runs in its own process.
Usage: python bench/bench_engine.py [-n 5000] [--big 50000] [--concurrency 64]
"""

import argparse
import asyncio
import json
import math
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTHON = sys.executable


def start_server(latency_ms: float) -> tuple[subprocess.Popen[str], str]:
    """The mock server in its own process; returns it and its base URL."""
    server = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "rulebench.testing.mock_openai",
            "--port",
            "0",
            "--latency-ms",
            str(latency_ms),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def bare_loop(url: str, n: int, concurrency: int) -> dict[str, float]:
    """The ceiling: aiohttp posting chat requests with no evaluation machinery at all."""
    import aiohttp

    semaphore = asyncio.Semaphore(concurrency)
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one(i: int) -> None:
            body = {
                "model": "m",
                "messages": [{"role": "user", "content": f"tok{i}"}],
                "max_tokens": 16,
            }
            async with semaphore, session.post(f"{url}/chat/completions", json=body) as response:
                json.loads(await response.read())

        start = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(n)))
        wall = time.perf_counter() - start
    return {"items": n, "wall_s": wall, "per_s": n / wall, "rss_mb": peak_rss_mb()}


async def rulebench_run(url: str, n: int, concurrency: int) -> dict[str, float]:
    """A real run: loadtest task, openai-api backend, SQLite store, cache on (the defaults)."""
    from rulebench.checks.loadtest import LoadTestTask
    from rulebench.engine.runner import Runner, RunSpec
    from rulebench.engine.store import Store
    from rulebench.models.base import BackendOptions
    from rulebench.models.registry import create_model

    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.sqlite") as store:
        model = create_model("openai-api/mock/bench", BackendOptions(base_url=url))
        spec = RunSpec(task="loadtest", model="openai-api/mock/bench", concurrency=concurrency)
        start = time.perf_counter()
        report = await Runner(store).run(LoadTestTask(n=n), model, spec)
        wall = time.perf_counter() - start
        await model.aclose()
        assert store.count_results(report.run.id)["ok"] == n, "not every item finished"
    return {"items": n, "wall_s": wall, "per_s": n / wall, "rss_mb": peak_rss_mb()}


def measure(kind: str, url: str, n: int, concurrency: int) -> dict[str, float]:
    """Run one measurement in a fresh interpreter and read its JSON line."""
    output = subprocess.run(
        [
            PYTHON,
            __file__,
            "--worker",
            kind,
            "--url",
            url,
            "--limit",
            str(n),
            "--concurrency",
            str(concurrency),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rates: dict[str, float] = json.loads(output.strip().splitlines()[-1])
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", "--limit", type=int, default=5000)
    parser.add_argument("--big", type=int, default=50000)
    parser.add_argument("--slow-items", type=int, default=500)
    parser.add_argument("--latency-ms", type=float, default=200)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--worker", choices=["bare", "rulebench"], help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        work = bare_loop if args.worker == "bare" else rulebench_run
        print(json.dumps(asyncio.run(work(args.url, args.limit, args.concurrency))))
        return

    c = args.concurrency
    server, url = start_server(0)
    try:
        bare = measure("bare", url, args.limit, c)
        ours = measure("rulebench", url, args.limit, c)
        big = measure("rulebench", url, args.big, c)
    finally:
        server.terminate()
    print(f"1. {args.limit} items, concurrency {c}, zero latency")
    print(f"   bare aiohttp loop : {bare['per_s']:8,.0f} requests/s")
    print(f"   rulebench         : {ours['per_s']:8,.0f} items/s (results stored)")
    print(f"   ratio             : {ours['per_s'] / bare['per_s']:8.2f}  (target >= 0.5)")

    server, url = start_server(args.latency_ms)
    try:
        slow = measure("rulebench", url, args.slow_items, c)
    finally:
        server.terminate()
    ideal = math.ceil(args.slow_items / c) * args.latency_ms / 1000
    print(f"2. {args.slow_items} items, concurrency {c}, {args.latency_ms:.0f} ms latency")
    wall = slow["wall_s"]
    print(f"   wall {wall:.2f} s vs ideal {ideal:.2f} s: {wall / ideal:.2f}x (target <= 1.3x)")

    small_mb, big_mb = ours["rss_mb"], big["rss_mb"]
    print(f"3. peak RSS: {args.limit} items {small_mb:.0f} MB, {args.big} items {big_mb:.0f} MB")
    print(f"   difference +{big_mb - small_mb:.0f} MB (target <= +100 MB)")
    print(f"   {args.big} items ran at {big['per_s']:,.0f} items/s")


if __name__ == "__main__":
    main()
