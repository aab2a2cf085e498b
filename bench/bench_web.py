"""Response times of the local web app: explorer pages of a large run, two playground visitors.

Explorer: writes a synthetic finished run of N results (default 100,000) through the store's
writer, then prints the first read and the best of R more of each page: runs list, a page near
the end, a filtered page, progress, one item, a page sorted by latency, an item's neighbours
in a filtered list sorted by verdict, a comparison page, a search within the run, the charts
page. A run's aggregates are kept once computed, so a run's first page is the slow one.
Then the charts page beside the run page, cold and warm, medians of R (issue 36: within 2x), and
the time to read every result of the run, which no page of a scenarios run may do.
Playground: two visitors send a turn at once to the scripted model answering after D seconds;
prints each reply's time (about D when the app awaits them together, about 2 D one after the
other).
Load (issue 40): `rulebench serve` on a store holding a finished run of L results (default
25,000) while `rulebench run loadtest` writes W more (default 10,000) into it, and C clients
(default 50) ask, for S seconds, each in turn for the runs list and the live run's progress
JSON, one request after another. Prints requests/s, p50 and p95 per page; the two pages'
medians unloaded (the finished run's progress, before the writer starts); whether the writer
stored every result, and its time against the same run written alone.
Usage: python bench/bench_web.py [--results 100000] [--repeats 3] [--delay-s 1.0]
       [--cases explorer,playground,load] [--load-results 25000] [--writer-items 10000]
       [--clients 50] [--duration-s 20] [--writer-delay-s 0.1]
"""

import argparse
import asyncio
import json
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import aiohttp
from pydantic import JsonValue

from bench_common import print_table
from bench_web_charts import charts_rows
from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message
from rulebench.engine.store.database import Store
from rulebench.scenarios.played import STRATEGIES

BASE_URL = "http://127.0.0.1:8765"  # a loopback name, as the app's Host check wants
SCENARIOS = ("Encryption", "Hodor", "SimonSays", "AccessControl")


def result(index: int) -> ItemResult:
    """One synthetic scenarios result: every 5th an error, every other one failed.

    Its metadata is what a red-team case stores, so the report (and the charts page) reads it.
    """
    scenario = SCENARIOS[index % len(SCENARIOS)]
    metadata: dict[str, JsonValue] = {
        "case_id": f"case-{index:06d}",
        "scenario": scenario,
        "behavior": f"{scenario}/rule",
        "bucket": "harmless",
        "suite": "redteam",
        "category": STRATEGIES[index % len(STRATEGIES)],
        "repeat": 0,
    }
    asked = (Message(role="user", content=f"turn {index}"),)
    if index % 5 == 4:
        return ItemResult(item_id=f"i-{index:06d}", messages=asked, error="503", metadata=metadata)
    return ItemResult(
        item_id=f"i-{index:06d}",
        messages=(*asked, Message(role="assistant", content=f"answer {index}")),
        reply=f"answer {index}",
        outcome=Outcome(passed=index % 2 == 0, reason="turn 1: the rule"),
        metadata=metadata,
    )


def write_run(store: Path, count: int) -> str:
    """A finished run of `count` synthetic results, written as a live run writes; its id."""
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/synthetic", {"task": "scenarios"})
        writer = db.writer()
        for index in range(count):
            writer.put_result(run.id, result(index))
        writer.close()
        db.finish_run(run.id, "completed", {})
    return run.id


def best_s(action: Callable[[], object], repeats: int) -> float:
    """The best wall time of `repeats` calls (the machine is shared: the least disturbed)."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return min(times)


def explorer_rows(store: Path, run_id: str, count: int, repeats: int) -> list[tuple[str, ...]]:
    """Each page's best time, and reading the whole run for comparison."""
    from fastapi.testclient import TestClient

    from rulebench.web.app import create_app

    last_page = count // 50 - 100
    pages = (
        "/",
        f"/runs/{run_id}?page={last_page}",
        f"/runs/{run_id}?scenario=Encryption&verdict=passed&size=100",
        f"/api/runs/{run_id}/progress",
        f"/runs/{run_id}/items/i-{count - 1:06d}",
        # Sorted in SQL (issue 36): a late page by latency, an item's neighbours by verdict.
        f"/runs/{run_id}?sort=latency&order=desc&page={last_page}",
        f"/runs/{run_id}/items/i-{count // 2 + 1:06d}?verdict=failed&sort=verdict",
        f"/compare?a={run_id}&b={run_id}&page=7",
        f"/search?q=answer&run={run_id}",
        # Summed in SQL, not read result by result (issue 36): see the charts case below.
        f"/runs/{run_id}/charts",
    )
    rows: list[tuple[str, ...]] = [("page", "first s", "best s")]
    with TestClient(create_app(store), base_url=BASE_URL) as client:
        client.get("/api/runs/none/progress")  # templates compile once (a 404 computes nothing)
        for url in pages:
            started = time.perf_counter()
            page = client.get(url)
            first = time.perf_counter() - started
            page.raise_for_status()  # a page that fails is no figure
            if url.endswith("/charts") and "<svg" not in page.text:
                raise SystemExit(f"{url} drew no chart: its time would be no figure")
            seconds = best_s(partial(client.get, url), repeats)
            rows.append((url, f"{first:.3f}", f"{seconds:.3f}"))
        print_table(rows)
        print(f"\ncharts beside the run page ({count:,} results), load average {load_average()}")
        print_table(charts_rows(client, run_id, repeats))
    with Store(store) as db:
        seconds = best_s(lambda: sum(1 for _ in db.iter_results(run_id)), repeats)
    return [("", "", "best s"), (f"(every result of the run, {count})", "", f"{seconds:.3f}")]


async def two_visitors(folder: Path, delay_s: float) -> tuple[float, float]:
    """Each visitor's time from sending a turn to its page, both sent at once."""
    import httpx2

    from rulebench.web.app import create_app
    from rulebench.web.playground.config import PlaygroundConfig

    write_run(folder / "s.sqlite", 3)
    config = PlaygroundConfig(
        save_dir=folder / "cases", model="scripted/fixed", model_args={"delay_s": str(delay_s)}
    )
    transport = httpx2.ASGITransport(app=create_app(folder / "s.sqlite", playground=config))

    async def play(name: str) -> float:
        async with httpx2.AsyncClient(
            transport=transport,
            base_url=BASE_URL,
            headers={"Origin": BASE_URL},
            follow_redirects=True,
        ) as client:
            form = {"scenario": "Encryption", "params": json.dumps({"secret": "opensesame"})}
            url = (await client.post("/play", data=form)).url.path
            started = time.perf_counter()
            sent = await client.post(f"{url}/send", data={"message": f"{name} says hi"})
            sent.raise_for_status()
            return time.perf_counter() - started

    first, second = await asyncio.gather(play("Ann"), play("Ben"))
    return first, second


UNLOADED_READS = 15
"""Reads of each page, one at a time, before the writer and the clients start."""


@contextmanager
def served(store: Path) -> Iterator[str]:
    """`rulebench serve` on `store`, in its own process (as a team runs it); its base URL."""
    with socket.socket() as probe:  # a free port
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "rulebench", "serve", "--store", str(store)]
    server = subprocess.Popen([*command, "--port", str(port)], stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise SystemExit("rulebench serve did not start listening within 30 s")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(30)


def start_writer(store: Path, items: int, delay_s: float) -> subprocess.Popen[bytes]:
    """`rulebench run loadtest` of `items` items, 64 in flight, into `store`.

    The scripted model answers after `delay_s` (0: as fast as the engine goes).
    """
    command = [sys.executable, "-m", "rulebench", "run", "loadtest", "-n", str(items), "-c", "64"]
    command += ["-m", "scripted/echo", "-M", f"delay_s={delay_s}", "--store", str(store)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def finish_writer(writer: subprocess.Popen[bytes], started: float) -> float:
    """Wait for the writer; its wall seconds since `started` (a failed run is no figure)."""
    if writer.wait() != 0:
        raise SystemExit(f"the writer (rulebench run loadtest) exited {writer.returncode}")
    return time.perf_counter() - started


def timed_writer(writer: subprocess.Popen[bytes], started: float) -> Callable[[], float]:
    """What gives the writer's wall seconds once it ends, timed as it ends (not when asked)."""
    ended: list[float] = []
    waiter = threading.Thread(target=lambda: ended.append(finish_writer(writer, started)))
    waiter.start()

    def seconds() -> float:
        waiter.join()
        if not ended:
            raise SystemExit(f"the writer (rulebench run loadtest) exited {writer.returncode}")
        return ended[0]

    return seconds


def newest_run(store: Path, task: str) -> tuple[str, str, int]:
    """The newest run of `task`: its id, stored status and rows in `results` (0 if none)."""
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        found = db.execute(
            "SELECT id, status FROM runs WHERE task = ? ORDER BY started_at DESC LIMIT 1", (task,)
        ).fetchone()
        if found is None:
            return "", "", 0
        [(count,)] = db.execute("SELECT COUNT(*) FROM results WHERE run_id = ?", (found[0],))
    return found[0], found[1], int(count)


def wait_for_run(store: Path, writer: subprocess.Popen[bytes]) -> str:
    """The id of the writer's run, once it has stored a first result."""
    while writer.poll() is None:
        run_id, _, count = newest_run(store, "loadtest")
        if count:
            return run_id
        time.sleep(0.05)
    raise SystemExit(f"the writer exited {writer.returncode} before storing a result")


async def get_s(client: aiohttp.ClientSession, url: str) -> float:
    """One GET's wall seconds; a failed page is no figure, so it stops the bench."""
    started = time.perf_counter()
    async with client.get(url) as response:
        await response.read()
        if response.status != 200:
            raise SystemExit(f"GET {url}: HTTP {response.status}")
    return time.perf_counter() - started


async def one_at_a_time_s(base_url: str, urls: dict[str, str]) -> dict[str, list[float]]:
    """Each page's first read, then UNLOADED_READS more, one request at a time."""
    async with aiohttp.ClientSession(base_url) as client:
        return {
            name: [await get_s(client, url) for _ in range(1 + UNLOADED_READS)]
            for name, url in urls.items()
        }


async def clients_s(
    base_url: str, urls: dict[str, str], clients: int, duration_s: float
) -> dict[str, list[float]]:
    """Each page's times with `clients` clients asking for the pages in turn for `duration_s`.

    Each client sends its next request as soon as its last one is answered.
    """
    times: dict[str, list[float]] = {name: [] for name in urls}
    pages = list(urls.items())
    deadline = time.perf_counter() + duration_s

    async def client_loop(client: aiohttp.ClientSession, turn: int) -> None:
        while time.perf_counter() < deadline:
            name, url = pages[turn % len(pages)]
            seconds = await get_s(client, url)
            if time.perf_counter() <= deadline:  # a request the window cut is not counted
                times[name].append(seconds)
            turn += 1

    connector = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(base_url, connector=connector) as client:
        await asyncio.gather(*(client_loop(client, index) for index in range(clients)))
    return times


def percentile_s(times: list[float], share: float) -> float:
    """The `share` quantile of `times` (nearest rank)."""
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def loaded_rows(times: dict[str, list[float]], duration_s: float) -> list[tuple[str, ...]]:
    """Requests, requests/s, p50 and p95 of each page and of both together."""
    rows: list[tuple[str, ...]] = [("page, under load", "requests", "requests/s", "p50 s", "p95 s")]
    every = [seconds for page in times.values() for seconds in page]
    for name, page in (*times.items(), ("both", every)):
        p50, p95 = percentile_s(page, 0.5), percentile_s(page, 0.95)
        rows.append(
            (name, str(len(page)), f"{len(page) / duration_s:.1f}", f"{p50:.3f}", f"{p95:.3f}")
        )
    return rows


def load_average() -> str:
    """The 1-minute load average (the machine may be shared: read the figures beside it)."""
    return Path("/proc/loadavg").read_text().split()[0]


def load_case(folder: Path, args: argparse.Namespace) -> None:
    """The issue's case: a large finished run, a live writer and many clients on one server."""
    store = folder / "load.sqlite"
    finished = write_run(store, args.load_results)
    started = time.perf_counter()
    alone_s = finish_writer(
        start_writer(folder / "alone.sqlite", args.writer_items, args.writer_delay_s), started
    )
    print(
        f"\nload: a finished run of {args.load_results:,} results; a writer of "
        f"{args.writer_items:,} items (model delay {args.writer_delay_s:g} s, 64 in flight) "
        f"took {alone_s:.1f} s alone; "
        f"{args.clients} clients for {args.duration_s:g} s; load average {load_average()}"
    )
    with served(store) as base_url:
        quiet = {"runs list": "/", "progress": f"/api/runs/{finished}/progress"}
        unloaded = asyncio.run(one_at_a_time_s(base_url, quiet))
        rows = [("page, unloaded", "first s", f"median of {UNLOADED_READS} s")]
        rows += [
            (name, f"{t[0]:.3f}", f"{statistics.median(t[1:]):.3f}") for name, t in unloaded.items()
        ]
        print_table(rows)
        started = time.perf_counter()
        writer = start_writer(store, args.writer_items, args.writer_delay_s)
        live = wait_for_run(store, writer)
        writer_s = timed_writer(writer, started)
        urls = {"runs list": "/", "progress": f"/api/runs/{live}/progress"}
        times = asyncio.run(clients_s(base_url, urls, args.clients, args.duration_s))
        loaded_s = time.perf_counter() - started
    print_table(loaded_rows(times, args.duration_s))
    _, status, count = newest_run(store, "loadtest")
    # A writer that outlasts the clients ends unloaded: its time then understates the cost.
    ended = "before" if writer_s() <= loaded_s else "after"
    print(
        f"writer under load: {count:,} of {args.writer_items:,} results stored, run {status}; "
        f"{writer_s():.1f} s against {alone_s:.1f} s alone ({writer_s() / alone_s:.2f}x), ended "
        f"{ended} the clients stopped; load average {load_average()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--delay-s", type=float, default=1.0)
    parser.add_argument("--cases", default="explorer,playground,load", help="which to run")
    parser.add_argument("--load-results", type=int, default=25_000, help="the finished run")
    parser.add_argument("--writer-items", type=int, default=10_000, help="the live run")
    parser.add_argument(
        "--writer-delay-s", type=float, default=0.1, help="the writer's model delay (0: none)"
    )
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument(
        "--duration-s", type=float, default=20.0, help="how long the clients ask (issue: 64)"
    )
    args = parser.parse_args()
    cases = set(args.cases.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        if "explorer" in cases:
            store = Path(tmp) / "explorer.sqlite"
            started = time.perf_counter()
            run_id = write_run(store, args.results)
            print(f"wrote {args.results} results in {time.perf_counter() - started:.1f} s")
            print_table(explorer_rows(store, run_id, args.results, args.repeats))
        if "playground" in cases:
            (Path(tmp) / "play").mkdir()
            first, second = asyncio.run(two_visitors(Path(tmp) / "play", args.delay_s))
            print(
                f"playground, two visitors at once, model delay {args.delay_s:g} s: "
                f"replies after {first:.2f} s and {second:.2f} s"
            )
        if "load" in cases:
            load_case(Path(tmp), args)


if __name__ == "__main__":
    main()
