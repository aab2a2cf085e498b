"""`runs merge` at scale: S shards of R results each merged into one store, against writing them.

For each size R (results per shard) this writes S*R results once through the store writer
into one store (the way a run stores them: the baseline), cuts that run into S shard stores,
then merges the S shards into a fresh target. Both run in a child process of their own, which
reports its wall seconds and its peak resident memory (getrusage; also what it held after its
imports), so the figures cover SQLite's own memory, not only Python's. The issue's target:
the merge takes at most as long as the write (ratio <= 1), and its memory stays flat as R grows.
Cache entries are left out: the merge copies them with one INSERT ... SELECT, as it does results.
Usage: python bench/bench_merge.py [--results 2000,8000] [--shards 8]
       (the full size: --results 50000 --shards 8, some minutes and about 2 GB of disk)
"""

import argparse
import json
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import JsonValue

from bench_common import print_table
from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message, Usage
from rulebench.engine.store.database import Store
from rulebench.engine.store.merge import merge_stores

TASK, MODEL = "echo-test", "scripted/echo"
CONFIG: dict[str, JsonValue] = {"task": TASK, "model": MODEL, "limit": None, "shard": None}
TEMPLATES = 500
"""Distinct results the written ones cycle through (only their item ids are new)."""


def templates() -> list[ItemResult]:
    """Results shaped like a run's: a prompt of a few hundred characters, a reply, a score."""
    return [
        ItemResult(
            item_id=f"template-{index}",
            messages=(
                Message(role="system", content="Answer with one word. " * 4),
                Message(role="user", content=f"Question {index}: " + "who is whose aunt? " * 12),
                Message(role="assistant", content=f"The answer is {index % 7}."),
            ),
            reply=f"The answer is {index % 7}.",
            outcome=Outcome(answer=str(index % 7), score=float(index % 2)),
            usage=Usage(prompt_tokens=80, completion_tokens=6),
            latency_s=0.01,
            calls=1,
            metadata={"index": index, "group": f"g{index % 5}"},
        )
        for index in range(TEMPLATES)
    ]


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def write_once(path: Path, count: int) -> None:
    """Write `count` results of one run through the store writer, as a run does."""
    shapes = templates()
    with Store(path) as store:
        run = store.create_run(TASK, MODEL, CONFIG)
        writer = store.writer()
        for index in range(count):
            shape = shapes[index % TEMPLATES]
            writer.put_result(run.id, shape.model_copy(update={"item_id": f"item-{index:08d}"}))
        writer.close()
        store.finish_run(run.id, "completed", {})


def cut_into_shards(whole: Path, folder: Path, shards: int) -> list[Path]:
    """Shard stores of the whole run, item k in shard k mod S + 1, as `--shard` would store them."""
    paths = []
    with sqlite3.connect(whole) as db:
        [(total,)] = db.execute("SELECT COUNT(*) FROM results").fetchall()
    for index in range(1, shards + 1):
        path = folder / f"shard{index}.sqlite"
        with Store(path) as store:
            place: dict[str, JsonValue] = {"index": index, "count": shards}
            run = store.create_run(TASK, MODEL, CONFIG | {"shard": place})
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("ATTACH DATABASE ? AS whole", (str(whole),))
        columns = [row[1] for row in db.execute("PRAGMA main.table_info(results)")][1:]
        names = ", ".join(columns)
        db.execute(
            f"INSERT INTO results (run_id, {names}) SELECT ?, {names} FROM whole.results "
            "WHERE (rowid - 1) % ? = ?",
            (run.id, shards, index - 1),
        )
        notes = {"shard": place | {"whole_items": total, "shard_items": total // shards}}
        db.execute(
            "UPDATE runs SET status = 'completed', ended_at = started_at, notes = ?",
            (json.dumps(notes),),
        )
        db.close()
        paths.append(path)
    return paths


def child(args: argparse.Namespace) -> None:
    """Do one timed job in this process and print its seconds and peak memory as JSON."""
    idle = peak_mib()
    started = time.perf_counter()
    if args.child == "write":
        write_once(Path(args.into), args.count)
    else:
        merge_stores([Path(source) for source in args.sources], Path(args.into))
    seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds, "peak_mib": peak_mib(), "idle_mib": idle}))


def in_child(*args: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", *args], capture_output=True, text=True, check=True
    )
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


def measure(per_shard: int, shards: int) -> dict[str, float]:
    """Write S*R results once, cut them into S shards, merge those: both jobs' figures."""
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        whole = folder / "whole.sqlite"
        write = in_child("write", "--into", str(whole), "--count", str(per_shard * shards))
        sources = cut_into_shards(whole, folder, shards)
        merged = folder / "merged.sqlite"
        merge = in_child("merge", "--into", str(merged), "--sources", *map(str, sources))
        with sqlite3.connect(merged) as db:
            [(held,)] = db.execute("SELECT COUNT(*) FROM results").fetchall()
        assert held == per_shard * shards, f"the merged run holds {held} results"
    return {
        "write_s": write["seconds"],
        "merge_s": merge["seconds"],
        "ratio": merge["seconds"] / write["seconds"],
        "write_peak_mib": write["peak_mib"],
        "merge_peak_mib": merge["peak_mib"],
        "idle_mib": merge["idle_mib"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="2000,8000", help="results per shard, comma-separated")
    parser.add_argument("--shards", type=int, default=8)
    parser.add_argument("--child", choices=("write", "merge"), help=argparse.SUPPRESS)
    parser.add_argument("--into", help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--sources", nargs="*", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    rows = [("shards x results", "write s", "merge s", "merge/write", "write MiB", "merge MiB",
             "idle MiB")]  # fmt: skip
    figures = {}
    for per_shard in (int(size) for size in args.results.split(",")):
        found = measure(per_shard, args.shards)
        rows.append((
            f"{args.shards} x {per_shard:,}", f"{found['write_s']:.2f}", f"{found['merge_s']:.2f}",
            f"{found['ratio']:.2f}", f"{found['write_peak_mib']:.1f}",
            f"{found['merge_peak_mib']:.1f}", f"{found['idle_mib']:.1f}",
        ))  # fmt: skip
        figures[per_shard] = found
    print("peak resident MiB of each child (getrusage); idle: a child's after its imports")
    print_table(rows)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
