"""A run split in 4 shards (4 processes at once, 4 stores) and merged equals the run made whole.

Real processes, real stores, the scripted model: the same spec run whole and run sharded then
merged gives the same item ids and outcomes, the same `report --json` figures (the run id
aside) and the same report file.
"""

import json
import subprocess
from pathlib import Path
from typing import Any

from rulebench.engine.store import Store

from tests.command import rulebench, rulebench_command

RUN = ("run", "inferential", "--task", "kinship", "--limit", "20", "-m", "scripted/echo")


def results(store: Path) -> tuple[str, list[Any]]:
    with Store(store, readonly=True) as db:
        [run] = db.list_runs()
        rows = sorted(
            (r.item_id, r.error, r.reply, r.outcome and r.outcome.model_dump(mode="json"))
            for r in db.iter_results(run.id)
        )
        return run.id, rows


def report(store: Path, run_id: str, folder: Path) -> tuple[Any, bytes]:
    made = rulebench(
        "report", "inferential", run_id, "--json", "--store", str(store), "-o", str(folder)
    )
    assert made.returncode == 0, made.stderr
    figures = json.loads(made.stdout.replace(run_id, "RUN"))
    return figures, (folder / "report.md").read_bytes()


def test_four_shards_merged_equal_the_whole_run(tmp_path: Path) -> None:
    whole = tmp_path / "whole.sqlite"
    assert rulebench(*RUN, "--store", str(whole)).returncode == 0
    shards = [tmp_path / f"shard{index}.sqlite" for index in range(1, 5)]
    running = [
        subprocess.Popen(
            rulebench_command(*RUN, "--store", str(store), "--shard", f"{index}/4"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for index, store in enumerate(shards, 1)
    ]
    for process in running:
        assert process.wait(timeout=120) == 0, process.stderr and process.stderr.read()
    merged = tmp_path / "merged.sqlite"
    joined = rulebench("runs", "merge", *map(str, shards), "--into", str(merged))
    assert joined.returncode == 0, joined.stderr
    whole_id, whole_results = results(whole)
    merged_id, merged_results = results(merged)
    assert merged_results == whole_results and len(whole_results) == 20
    with Store(merged, readonly=True) as db:
        assert db.get_run(merged_id).status == "completed"
    assert report(merged, merged_id, tmp_path / "m") == report(whole, whole_id, tmp_path / "w")
    again = rulebench("runs", "merge", *map(str, shards), "--into", str(merged), "--json")
    added = json.loads(again.stdout)
    assert (added["runs_added"], added["results_added"], added["cache_added"]) == (0, 0, 0)
