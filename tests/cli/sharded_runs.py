"""Sharded runs in real processes: start the shards, read a store's run, make its report.

Shared by the parity test (4 shards at once, merged, equal the whole run) and the SIGKILL
tests (one shard killed and resumed; a merge killed mid-way).
"""

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rulebench.engine.store.database import Store

from tests.command import rulebench, rulebench_command

RUN = ("run", "inferential", "--task", "kinship", "--limit", "20", "-m", "scripted/echo")


def start_shards(run: Sequence[str], stores: Sequence[Path]) -> list["subprocess.Popen[bytes]"]:
    """Start shard I/N of `run` for each store, all at once, each into its own store."""
    return [
        subprocess.Popen(
            rulebench_command(*run, "--store", str(store), "--shard", f"{index}/{len(stores)}"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for index, store in enumerate(stores, 1)
    ]


def assert_exits_cleanly(process: "subprocess.Popen[bytes]") -> None:
    assert process.wait(timeout=120) == 0, process.stderr and process.stderr.read()


def results(store: Path) -> tuple[str, list[Any]]:
    """The store's one run: its id, and each result's item id, error, reply and outcome."""
    with Store(store, readonly=True) as db:
        [run] = db.list_runs()
        rows = sorted(
            (r.item_id, r.error, r.reply, r.outcome and r.outcome.model_dump(mode="json"))
            for r in db.iter_results(run.id)
        )
        return run.id, rows


def report(store: Path, run_id: str, folder: Path) -> tuple[Any, bytes]:
    """`report inferential --json` (the run id masked) and the report.md it writes."""
    made = rulebench(
        "report", "inferential", run_id, "--json", "--store", str(store), "-o", str(folder)
    )
    assert made.returncode == 0, made.stderr
    figures = json.loads(made.stdout.replace(run_id, "RUN"))
    return figures, (folder / "report.md").read_bytes()


def merge(sources: Sequence[Path], into: Path, *args: str) -> "subprocess.CompletedProcess[str]":
    """`rulebench runs merge SOURCES --into INTO`, expected to succeed."""
    joined = rulebench("runs", "merge", *map(str, sources), "--into", str(into), *args)
    assert joined.returncode == 0, joined.stderr
    return joined
