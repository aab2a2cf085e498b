"""Issue 27's targets in one table: rulebench beside the bare loop it wraps, in one run.

Measures, each against its floor on the same machine in the same run:
  - start-up of `rulebench run loadtest -n 1` against the mock server, beside a bare aiohttp
    script doing one request (bench_startup.py's round robin);
  - the marginal rate at concurrency 64 (items 2,000 to 6,000 of a run) and 2,000 items as a
    whole process, beside the bare aiohttp loop (bench_engine.py's rounds);
  - 500 items at 200 ms server latency against the ideal ceil(N/C) x latency;
  - peak memory of 50,000 items against 5,000;
  - with --tests, `make test-fast`.
Two floor rows follow the targets: the start-up of the bare script after importing the libraries
the CLI stands on (pydantic, typer, rich), and the CPU per item the marginal target leaves for
everything rulebench adds around a request beside what its engine alone costs (scripted/echo,
no network). Prints the date, the machine and the load, for the docs' performance page.
Usage: python bench/bench_overhead.py [--rounds 3] [--startup-runs 9] [--pin] [--tests]
"""

import argparse
import datetime
import math
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import bench_engine as engine
import bench_startup as startup
from bench_common import machine, print_table, start_mock_server

CONCURRENCY = 64
THIS_TREE = "(this tree)"
SLOW_ITEMS, LATENCY_MS, SLOW_TARGET = 500, 200.0, 1.2
SMALL, BIG, MEMORY_TARGET_MB = 5_000, 50_000, 100.0
WHOLE_TARGET = 0.7
TEST_FAST_TARGET_S = 90.0


class Row(NamedTuple):
    """One line of the table: what, the floor's figure, rulebench's, their ratio, the target."""

    measurement: str
    floor: str
    rulebench: str
    ratio: str
    target: str
    met: str


def verdict(holds: bool) -> str:
    return "yes" if holds else "NO"


def startup_rows(runs: int, pin: bool) -> list[Row]:
    """Start-up of one loadtest item against the bare script, and the libraries' own floor."""
    server_cpu, command_cpu = (0, 1) if pin else (None, None)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    server, url = start_mock_server(cpu=server_cpu)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            commands = startup.commands_to_time(url, tmp, embedded=False)
            chosen = (startup.BARE_LABEL, startup.FLOOR_LABEL, startup.MOCK_LABEL)
            times = startup.round_robin({k: commands[k] for k in chosen}, runs, env, command_cpu)
    finally:
        server.terminate()
        server.wait()
    bare, floor, ours = (statistics.median(times[label]) for label in chosen)
    return [
        Row(
            "start-up, `run loadtest -n 1` vs a 1-request script",
            f"{bare:.3f} s",
            f"{ours:.3f} s",
            f"{ours / bare:.2f}x",
            f"<= {startup.TARGET_RATIO}x",
            verdict(ours / bare <= startup.TARGET_RATIO),
        ),
        Row(
            "  floor: the script after importing pydantic, typer, rich",
            f"{bare:.3f} s",
            f"{floor:.3f} s",
            f"{floor / bare:.2f}x",
            "",
            "",
        ),
    ]


def engine_rows(rounds: int, pin: bool) -> list[Row]:
    """Marginal rate, whole process, latency hiding and memory against the mock server."""
    server_cpu = engine.pin_clients() if pin else None
    server, url = start_mock_server(0, server_cpu)
    try:
        figures = engine.marginal_figures(url, CONCURRENCY, rounds, {THIS_TREE: None})
        small = engine.measure("rulebench", url, SMALL, CONCURRENCY)
        big = engine.measure("rulebench", url, BIG, CONCURRENCY)
    finally:
        server.terminate()
    server, url = start_mock_server(LATENCY_MS, server_cpu)
    try:
        slow = engine.measure("rulebench", url, SLOW_ITEMS, CONCURRENCY)
    finally:
        server.terminate()
    bare_runs, ours_runs = figures.runs["bare"], figures.runs[f"rulebench {THIS_TREE}"]
    bare_rate = engine.median_of(bare_runs, "marginal_per_s")
    rate = engine.median_of(ours_runs, "marginal_per_s")
    bare_whole = statistics.median(figures.whole_s["bare"])
    whole = statistics.median(figures.whole_s[f"rulebench {THIS_TREE}"])
    ideal = math.ceil(SLOW_ITEMS / CONCURRENCY) * LATENCY_MS / 1000
    grown = big["rss_mb"] - small["rss_mb"]
    budget = engine.engine_budget_us(bare_runs)
    engine_cpu = engine.median_of(figures.engine, "cpu_us_per_item")
    return [
        Row(
            f"marginal rate, concurrency {CONCURRENCY}, cache on, results stored",
            f"{bare_rate:,.0f}/s",
            f"{rate:,.0f}/s",
            f"{rate / bare_rate:.2f}x",
            f">= {engine.MARGINAL_TARGET}x",
            verdict(rate / bare_rate >= engine.MARGINAL_TARGET),
        ),
        Row(
            "2,000 items as a whole process",
            f"{bare_whole:.2f} s",
            f"{whole:.2f} s",
            f"{bare_whole / whole:.2f}x",
            f">= {WHOLE_TARGET}x",
            verdict(bare_whole / whole >= WHOLE_TARGET),
        ),
        Row(
            f"{SLOW_ITEMS} items at {LATENCY_MS:.0f} ms latency (floor: the ideal)",
            f"{ideal:.2f} s",
            f"{slow['wall_s']:.2f} s",
            f"{slow['wall_s'] / ideal:.2f}x",
            f"<= {SLOW_TARGET}x",
            verdict(slow["wall_s"] / ideal <= SLOW_TARGET),
        ),
        Row(
            f"peak memory, {BIG:,} items (floor: {SMALL:,})",
            f"{small['rss_mb']:.0f} MB",
            f"{big['rss_mb']:.0f} MB",
            f"+{grown:.0f} MB",
            f"<= +{MEMORY_TARGET_MB:.0f} MB",
            verdict(grown <= MEMORY_TARGET_MB),
        ),
        Row(
            "  floor: CPU per item left at 0.8x (vs the engine alone)",
            f"{budget:.0f} us",
            f"{engine_cpu:.0f} us",
            f"{engine_cpu / budget:.1f}x",
            "",
            "",
        ),
    ]


def test_fast_row() -> Row:
    """`make test-fast`, timed whole (its install step finds everything in place)."""
    root = Path(__file__).resolve().parent.parent
    start = time.perf_counter()
    subprocess.run(["make", "test-fast"], cwd=root, check=True, capture_output=True)
    wall = time.perf_counter() - start
    return Row(
        "`make test-fast`",
        "",
        f"{wall:.0f} s",
        "",
        f"< {TEST_FAST_TARGET_S:.0f} s",
        verdict(wall < TEST_FAST_TARGET_S),
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the marginal figures")
    parser.add_argument("--startup-runs", type=int, default=9, help="runs of each start-up")
    parser.add_argument("--pin", action="store_true", help=engine.PIN_HELP)
    parser.add_argument("--tests", action="store_true", help="also time `make test-fast`")
    args = parser.parse_args()
    print(f"{datetime.date.today()}; {machine()}")
    print(f"load average before: {' '.join(f'{n:.2f}' for n in os.getloadavg())}")
    every_cpu = os.sched_getaffinity(0)
    try:
        rows = startup_rows(args.startup_runs, args.pin) + engine_rows(args.rounds, args.pin)
    finally:
        os.sched_setaffinity(0, every_cpu)  # --pin kept this process on one CPU: the tests get all
    if args.tests:
        rows.append(test_fast_row())
    print(f"load average after:  {' '.join(f'{n:.2f}' for n in os.getloadavg())}")
    print(f"medians: start-up of {args.startup_runs} runs, marginal of {args.rounds} rounds")
    print_table([Row("measurement", "floor", "rulebench", "ratio", "target", "met"), *rows])


if __name__ == "__main__":
    main()
