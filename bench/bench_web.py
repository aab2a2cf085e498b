"""Response times of the local web app: explorer pages of a large run, two playground visitors.

Explorer: writes a synthetic finished run of N results (default 100,000) through the store's
writer, then prints the first read and the best of R more of each page: runs list, a page near
the end, a filtered page, progress, one item, a comparison page, a search within the run, the
charts page. A run's aggregates are kept once computed, so a run's first page is the slow one.
Beside them, the time to read every result of the run, which no page but the charts (built from
every verdict, as the report is) may do. Playground: two visitors send a turn at once to the
scripted model answering after D seconds; prints each reply's time (about D when the app
awaits them together, about 2 D one after the other).
Usage: python bench/bench_web.py [--results 100000] [--repeats 3] [--delay-s 1.0]
"""

import argparse
import asyncio
import json
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from pydantic import JsonValue

from bench_common import print_table
from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message
from rulebench.engine.store import Store
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
        f"/compare?a={run_id}&b={run_id}&page=7",
        f"/search?q=answer&run={run_id}",
        # The one page that reads every result, as `rulebench report` does.
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
    with Store(store) as db:
        seconds = best_s(lambda: sum(1 for _ in db.iter_results(run_id)), repeats)
    rows.append((f"(every result of the run, {count})", "", f"{seconds:.3f}"))
    return rows


async def two_visitors(folder: Path, delay_s: float) -> tuple[float, float]:
    """Each visitor's time from sending a turn to its page, both sent at once."""
    import httpx2

    from rulebench.web.app import create_app
    from rulebench.web.playground import PlaygroundConfig

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


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--delay-s", type=float, default=1.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "explorer.sqlite"
        started = time.perf_counter()
        run_id = write_run(store, args.results)
        print(f"wrote {args.results} results in {time.perf_counter() - started:.1f} s")
        print_table(explorer_rows(store, run_id, args.results, args.repeats))
        (Path(tmp) / "play").mkdir()
        first, second = asyncio.run(two_visitors(Path(tmp) / "play", args.delay_s))
    print(
        f"playground, two visitors at once, model delay {args.delay_s:g} s: "
        f"replies after {first:.2f} s and {second:.2f} s"
    )


if __name__ == "__main__":
    main()
