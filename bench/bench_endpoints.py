"""Throughput against 1, 2, 3 and 4 replicas of one model: does it scale near-linearly?

Starts 4 mock OpenAI servers, each in its own process, each answering after 200 ms and at most
K requests at once (a replica's capacity; the rest queue at the server), then runs N loadtest
items through the library (Runner, SQLite store, cache off) against the first 1, 2, 3, 4 of them
as one model with several base URLs, and prints: endpoints, items, wall s, items/s, speed-up vs 1.
The ideal is k x K / 0.2 s items/s with k endpoints.
Usage: python bench/bench_endpoints.py [-n 400] [--capacity 8] [--latency-ms 200]
"""

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

PYTHON = sys.executable


def start_servers(count: int, latency_ms: float, capacity: int) -> list[subprocess.Popen[str]]:
    """`count` mock servers in their own processes (read each one's URL from its stdout)."""
    command = [PYTHON, "-m", "rulebench.testing.mock_openai", "--port", "0"]
    command += ["--latency-ms", str(latency_ms), "--max-concurrent", str(capacity)]
    return [subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(count)]


async def run_items(urls: list[str], items: int, concurrency: int) -> tuple[float, Counter[str]]:
    """Wall time of a whole run against these URLs, and how many items each endpoint answered."""
    from rulebench.checks.loadtest import LoadTestTask
    from rulebench.engine.runner import Runner, RunSpec
    from rulebench.engine.store.database import Store
    from rulebench.models.base import BackendOptions
    from rulebench.models.registry import create_model

    base_url = ",".join(urls)
    args = {"max_connections": str(concurrency)}
    spec = RunSpec(
        task="loadtest",
        model="openai-api/mock/bench",
        model_args=args,
        base_url=base_url,
        concurrency=concurrency,
        use_cache=False,
    )
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.sqlite") as store:
        model = create_model(spec.model, BackendOptions(args=args, base_url=base_url))
        start = time.perf_counter()
        report = await Runner(store).run(LoadTestTask(n=items), model, spec)
        wall = time.perf_counter() - start
        await model.aclose()
        assert store.count_results(report.run.id)["ok"] == items, "not every item finished"
        answered = Counter(
            endpoint
            for result in store.iter_results(report.run.id)
            for endpoint in result.endpoints
        )
    return wall, answered


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", "--limit", type=int, default=400)
    parser.add_argument("--capacity", type=int, default=8, help="requests a replica serves at once")
    parser.add_argument("--latency-ms", type=float, default=200)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--endpoints", type=int, default=4)
    args = parser.parse_args()

    servers = start_servers(args.endpoints, args.latency_ms, args.capacity)
    try:
        urls = [server.stdout.readline().strip() for server in servers if server.stdout]
        rows = []
        for count in range(1, args.endpoints + 1):
            wall, answered = asyncio.run(run_items(urls[:count], args.limit, args.concurrency))
            rows.append((count, wall, answered))
    finally:
        for server in servers:
            server.terminate()
    base_per_s = args.limit / rows[0][1]
    ideal = args.capacity / (args.latency_ms / 1000)
    print(
        f"{args.limit} loadtest items, concurrency {args.concurrency}; each replica: "
        f"{args.latency_ms:.0f} ms per reply, {args.capacity} at once (ideal {ideal:.0f} items/s)"
    )
    print("| endpoints | items | wall s | items/s | speed-up vs 1 | items per endpoint |")
    print("|---:|---:|---:|---:|---:|---|")
    for count, wall, answered in rows:
        per_s = args.limit / wall
        spread = " / ".join(str(answered[url]) for url in urls[:count])
        print(
            f"| {count} | {args.limit} | {wall:.2f} | {per_s:.1f} | "
            f"{per_s / base_per_s:.2f}x | {spread} |"
        )


if __name__ == "__main__":
    main()
