"""Engine throughput, latency hiding and memory against the local mock OpenAI server.

Prints first the per-item overhead (issue 27): the marginal rate, items/s between the 2,000th
and the 6,000th finished item of one run (so start-up and the final drain cancel), of a bare
aiohttp loop and of rulebench (cache on, results stored), with the client's CPU per item
(all its threads, the store writer's included), medians of --rounds runs taken in turn; and
whole-process wall of `rulebench run loadtest -n 2000` against a bare script doing the same.
`--base-src DIR` adds a column for another rulebench source tree (e.g. `git archive` of an
older commit), so a change is measured A/B in the same run. Then, for the foundation issue:
  1. 5,000 items at concurrency 64, zero latency: rulebench items/s (results stored) vs a bare
     asyncio+aiohttp loop's requests/s on the same server, and the ratio (target >= 0.5).
  2. 500 items at concurrency 64 with 200 ms server latency: wall time vs the ideal
     ceil(N/C) x latency (target within 1.3x).
  3. 50,000 items: peak RSS vs the 5,000-item run (target: no more than 100 MB above).
Each measurement runs in a fresh subprocess (clean peak RSS); the server runs in its own process.
Usage: python bench/bench_engine.py [-n 5000] [--big 50000] [--concurrency 64] [--rounds 5]
       [--base-src DIR] [--only-marginal] [--pin]
"""

import argparse
import asyncio
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from bench_common import start_mock_server

PYTHON = sys.executable
MARKS = (2000, 6000)
"""The marginal rate is taken between these finished-item counts, in a run of a few more."""
MARGINAL_TARGET = 0.8
SERVED = "openai-api/mock/bench"
"""The model of a rulebench worker: the mock server through the openai-api backend."""
ENGINE_ALONE = "scripted/echo"
"""The same run with no network at all: what the engine itself costs per item."""
BARE_SCRIPT = """\
import asyncio, json, sys
import aiohttp

async def main(url, n, concurrency):
    semaphore = asyncio.Semaphore(concurrency)
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        async def one(i):
            body = {"model": "m", "messages": [{"role": "user", "content": f"tok{i}"}],
                    "max_tokens": 16}
            async with semaphore, session.post(f"{url}/chat/completions", json=body) as r:
                json.loads(await r.read())
        await asyncio.gather(*(one(i) for i in range(n)))

asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
"""
"""The bare loop as a whole script: the floor for whole-process figures."""


class Marks:
    """Wall and process CPU time when the run's finished-item count reaches each mark.

    Also a ProgressReporter for the Runner: `advance` is what it calls per finished item.
    """

    def __init__(self, marks: tuple[int, ...]) -> None:
        self.marks = set(marks)
        self.done = 0
        self.at: dict[int, tuple[float, float]] = {}

    def start(self, run_id: str, total: int | None, already_done: int) -> None:
        """Nothing to do: the marks count finished items."""

    def finish(self) -> None:
        """Nothing to do."""

    def advance(self, failed: bool = False) -> None:
        """Count one finished item; note the times when the count hits a mark."""
        self.done += 1
        if self.done in self.marks:
            self.at[self.done] = (time.perf_counter(), time.process_time())

    def figures(self) -> dict[str, float]:
        """Marginal items/s and client CPU microseconds per item between the first and last mark."""
        low, high = min(self.marks), max(self.marks)
        (wall0, cpu0), (wall1, cpu1) = self.at[low], self.at[high]
        return {
            "marginal_per_s": (high - low) / (wall1 - wall0),
            "cpu_us_per_item": (cpu1 - cpu0) / (high - low) * 1e6,
        }


PIN_HELP = "the mock server on CPU 0, every client on CPU 1 (as issue 27 measured; 2+ CPUs)"
SERVER_CPU, CLIENT_CPU = 0, 1


def pin_clients() -> int:
    """Keep this process, and so every client it starts, on CLIENT_CPU; the server's CPU.

    Pinned, a client's store writer shares its core, so its CPU per item is what bounds the
    rate; unpinned, the writer may use what the server leaves of the other core.
    """
    os.sched_setaffinity(0, {CLIENT_CPU})
    return SERVER_CPU


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _nothing() -> None:
    """What the bare loop calls per item when no marks are taken."""


async def bare_loop(
    url: str, n: int, concurrency: int, marks: Marks | None = None
) -> dict[str, float]:
    """The ceiling: aiohttp posting chat requests with no evaluation machinery at all."""
    import aiohttp

    advance: Callable[[], None] = marks.advance if marks is not None else _nothing
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
            advance()

        start = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(n)))
        wall = time.perf_counter() - start
    return {"items": n, "wall_s": wall, "per_s": n / wall, "rss_mb": peak_rss_mb()}


async def rulebench_run(
    url: str, n: int, concurrency: int, marks: Marks | None = None, spec_name: str = SERVED
) -> dict[str, float]:
    """A real run: loadtest task, openai-api backend, SQLite store, cache on (the defaults)."""
    from rulebench.checks.loadtest import LoadTestTask
    from rulebench.engine.runner import Runner, RunSpec
    from rulebench.engine.store.database import Store
    from rulebench.models.base import BackendOptions
    from rulebench.models.registry import create_model

    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.sqlite") as store:
        model = create_model(
            spec_name, BackendOptions(base_url=url if spec_name == SERVED else None)
        )
        spec = RunSpec(task="loadtest", model=spec_name, concurrency=concurrency)
        start = time.perf_counter()
        report = await Runner(store, marks).run(LoadTestTask(n=n), model, spec)
        wall = time.perf_counter() - start
        await model.aclose()
        assert store.count_results(report.run.id)["ok"] == n, "not every item finished"
    return {"items": n, "wall_s": wall, "per_s": n / wall, "rss_mb": peak_rss_mb()}


def worker_env(src: str | None) -> dict[str, str] | None:
    """The environment of a worker importing rulebench from `src` (None: as this process does)."""
    if src is None:
        return None
    return {**os.environ, "PYTHONPATH": os.path.abspath(src)}


def measure(
    kind: str, url: str, n: int, concurrency: int, src: str | None = None
) -> dict[str, float]:
    """Run one measurement in a fresh interpreter and read its JSON line.

    A run of more than MARKS[-1] items also reports its marginal rate and CPU per item.
    """
    command = [PYTHON, __file__, "--worker", kind, "--url", url, "--limit", str(n)]
    command += ["--concurrency", str(concurrency)]
    output = subprocess.run(
        command, capture_output=True, text=True, check=True, env=worker_env(src)
    ).stdout
    rates: dict[str, float] = json.loads(output.strip().splitlines()[-1])
    return rates


def whole_process_s(command: list[str], src: str | None) -> float:
    """Wall seconds of one command as a fresh process, start-up and exit included."""
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, check=True, env=worker_env(src))
    return time.perf_counter() - start


class MarginalFigures(NamedTuple):
    """Per round: marginal figures by label, whole-process walls by label, the engine alone."""

    runs: dict[str, list[dict[str, float]]]
    whole_s: dict[str, list[float]]
    engine: list[dict[str, float]]


def marginal_figures(
    url: str, c: int, rounds: int, sources: dict[str, str | None]
) -> MarginalFigures:
    """Measure, in turn each round: the bare loop, the engine alone and each rulebench source."""
    n = MARKS[-1] + 1000
    label = {name: f"rulebench {name}" for name in sources}
    figures = MarginalFigures({"bare": [], **{label[k]: [] for k in sources}}, {}, [])
    figures.whole_s.update({name: [] for name in figures.runs})
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "bare.py"
        script.write_text(BARE_SCRIPT)
        for _ in range(rounds):
            figures.runs["bare"].append(measure("bare", url, n, c))
            bare_cli = [PYTHON, str(script), url, "2000", str(c)]
            figures.whole_s["bare"].append(whole_process_s(bare_cli, None))
            figures.engine.append(measure("engine", url, n, c))
            for name, src in sources.items():
                figures.runs[label[name]].append(measure("rulebench", url, n, c, src))
                cli = [PYTHON, "-m", "rulebench", "run", "loadtest", "-n", "2000", "-c", str(c)]
                cli += ["-m", SERVED, "--base-url", url]
                cli += ["--store", f"{tmp}/{name}-{len(figures.whole_s[label[name]])}.sqlite"]
                figures.whole_s[label[name]].append(whole_process_s(cli, src))
    return figures


def median_of(runs: list[dict[str, float]], key: str) -> float:
    """The median of one figure over rounds."""
    return statistics.median(run[key] for run in runs)


def marginal(url: str, c: int, rounds: int, sources: dict[str, str | None]) -> None:
    """Print the marginal-rate table: bare loop beside each rulebench source, medians."""
    figures = marginal_figures(url, c, rounds, sources)
    bare_rate = median_of(figures.runs["bare"], "marginal_per_s")
    bare_whole = statistics.median(figures.whole_s["bare"])
    print(f"0. per-item overhead, concurrency {c}, zero latency, medians of {rounds} rounds")
    print(
        f"   (marginal: items {MARKS[0]:,} to {MARKS[-1]:,} of {MARKS[-1] + 1000:,}; whole: 2,000"
    )
    print("    items as a fresh process, start-up and exit included; load", os.getloadavg())
    header = ("marginal/s", "x bare", "CPU us/item", "whole s", "x bare")
    print(
        f"   {'':24} {header[0]:>10} {header[1]:>6} {header[2]:>11} {header[3]:>7} {header[4]:>6}"
    )
    for name, runs in figures.runs.items():
        rate = median_of(runs, "marginal_per_s")
        cpu = median_of(runs, "cpu_us_per_item")
        wall = statistics.median(figures.whole_s[name])
        print(
            f"   {name:24} {rate:10,.0f} {rate / bare_rate:6.2f} {cpu:11.0f} "
            f"{wall:7.2f} {bare_whole / wall:6.2f}"
        )
    print(
        f"   target: marginal at least {MARGINAL_TARGET}x the bare loop; whole 2,000 at least 0.7x"
    )
    print_budget(figures.runs["bare"], figures.engine)


def engine_budget_us(bare: list[dict[str, float]]) -> float:
    """CPU per item the marginal target leaves for everything rulebench adds around a request.

    A client bound by its own CPU runs at 0.8x the bare loop's rate when it spends at most
    1/0.8 of the bare loop's CPU per item.
    """
    bare_cpu = median_of(bare, "cpu_us_per_item")
    return bare_cpu / MARGINAL_TARGET - bare_cpu


def print_budget(bare: list[dict[str, float]], engine: list[dict[str, float]]) -> None:
    """What the marginal target leaves rulebench per item, beside what its engine alone costs.

    Everything rulebench adds around the request (items, cache, results, the store's writes)
    must fit in the budget (engine_budget_us). The engine alone is the same run on
    scripted/echo: no network at all, so no request cost in it.
    """
    bare_cpu = median_of(bare, "cpu_us_per_item")
    allowed = engine_budget_us(bare)
    engine_cpu = median_of(engine, "cpu_us_per_item")
    engine_rate = median_of(engine, "marginal_per_s")
    print(
        f"   budget at {MARGINAL_TARGET}x: {allowed:.0f} us CPU per item above the bare loop's "
        f"{bare_cpu:.0f}; rulebench's engine alone"
    )
    print(
        f"   ({ENGINE_ALONE}: no network; cache on, results stored) used {engine_cpu:.0f} us "
        f"per item ({engine_rate:,.0f} items/s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-n", "--limit", type=int, default=5000)
    parser.add_argument("--big", type=int, default=50000)
    parser.add_argument("--slow-items", type=int, default=500)
    parser.add_argument("--latency-ms", type=float, default=200)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the marginal table")
    parser.add_argument("--base-src", help="another rulebench src/ to measure beside this one")
    parser.add_argument("--only-marginal", action="store_true", help="print only table 0")
    parser.add_argument("--pin", action="store_true", help=PIN_HELP)
    parser.add_argument("--worker", choices=["bare", "rulebench", "engine"], help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        marks = Marks(MARKS) if args.limit > MARKS[-1] else None
        if args.worker == "bare":
            work = bare_loop(args.url, args.limit, args.concurrency, marks)
        else:
            spec = ENGINE_ALONE if args.worker == "engine" else SERVED
            work = rulebench_run(args.url, args.limit, args.concurrency, marks, spec)
        result = asyncio.run(work)
        print(json.dumps({**result, **(marks.figures() if marks else {})}))
        return

    c = args.concurrency
    sources: dict[str, str | None] = {"(this tree)": None}
    if args.base_src:
        sources["(base)"] = args.base_src
    server_cpu = pin_clients() if args.pin else None
    server, url = start_mock_server(0, server_cpu)
    try:
        marginal(url, c, args.rounds, sources)
        if args.only_marginal:
            return
        bare = measure("bare", url, args.limit, c)
        ours = measure("rulebench", url, args.limit, c)
        big = measure("rulebench", url, args.big, c)
    finally:
        server.terminate()
    print(f"1. {args.limit} items, concurrency {c}, zero latency")
    print(f"   bare aiohttp loop : {bare['per_s']:8,.0f} requests/s")
    print(f"   rulebench         : {ours['per_s']:8,.0f} items/s (results stored)")
    print(f"   ratio             : {ours['per_s'] / bare['per_s']:8.2f}  (target >= 0.5)")

    server, url = start_mock_server(args.latency_ms, server_cpu)
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
