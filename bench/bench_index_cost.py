"""What the full-text search index costs the store writer per result row (issue 27).

Writes the same loadtest-shaped result rows through the writer's own batch function into fresh
stores whose search index differs, and prints thread CPU per row (medians of R rounds): the index
as shipped (2- and 3-character prefix indexes), without the prefix indexes, and without the
index trigger at all. The writer thread's CPU is what competes with the event loop for the GIL.
Usage: python bench/bench_index_cost.py [--rows 7000] [--rounds 3]
"""

import argparse
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from bench_common import print_table
from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message, Usage
from rulebench.engine.store import writer
from rulebench.engine.store.connection import connect_writable
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import result_to_row

SHIPPED = "prefix = '2 3'"
VARIANTS: dict[str, str | None] = {
    "index as shipped (prefixes 2 and 3)": SHIPPED,
    "index without prefix indexes": "",
    "no index trigger": None,
}
BATCH = 150
"""Rows per write, about what the writer gathers in 50 ms at a few thousand items a second."""


def result_rows(run_id: str, count: int) -> list[tuple[object, ...]]:
    """Rows as a loadtest run stores them: a one-turn prompt, a token as reply and answer."""
    rows = []
    for index in range(count):
        token = f"tok{index:010x}"
        result = ItemResult(
            item_id=f"{index:016x}",
            messages=(
                Message(role="user", content=f"Repeat this token and nothing else: {token}"),
            ),
            reply=token,
            outcome=Outcome(answer=token, score=1.0),
            usage=Usage(prompt_tokens=9, completion_tokens=1),
            calls=1,
            metadata={"index": index},
        )
        rows.append(tuple(result_to_row(run_id, result)))
    return rows


def with_index(connection: sqlite3.Connection, prefix: str | None) -> None:
    """Rebuild the store's search table with `prefix` ("" none), or drop its trigger (None)."""
    if prefix is None:
        connection.execute("DROP TRIGGER results_search_insert")
        return
    if prefix == SHIPPED:
        return
    [sql] = connection.execute(
        "SELECT sql FROM sqlite_master WHERE name = 'results_search'"
    ).fetchone()
    connection.execute("DROP TABLE results_search")
    connection.execute(sql.replace(f", {SHIPPED}", f", {prefix}" if prefix else ""))


def cpu_us_per_row(prefix: str | None, count: int) -> float:
    """Writer thread CPU per row for `count` rows into a fresh store."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.sqlite"
        with Store(path) as store:
            run = store.create_run("loadtest", "bench", {})
        connection = connect_writable(path)
        try:
            with_index(connection, prefix)
            rows = result_rows(run.id, count)
            started = time.thread_time()
            for start in range(0, count, BATCH):
                writer._write(connection, rows[start : start + BATCH], [])
            return (time.thread_time() - started) / count * 1e6
        finally:
            connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=7000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for _ in range(args.rounds):  # round-robin: a busy moment slows every variant alike
        for name, prefix in VARIANTS.items():
            times[name].append(cpu_us_per_row(prefix, args.rows))
    rows = [("writer CPU per row", "us (median)")]
    rows += [(name, f"{statistics.median(found):.1f}") for name, found in times.items()]
    print(f"{args.rows:,} rows in batches of {BATCH}, {args.rounds} rounds")
    print_table(rows)


if __name__ == "__main__":
    main()
