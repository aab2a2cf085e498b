"""`rulebench experiment FILE --shard I/N`: each run a shard run; the shards merged are the whole.

Scripted models, real stores: 2 models x 1 task run whole, and run as 2 shards in 2 stores then
merged, give the same items and outcomes per run, and the file run on the merged store reuses
the joined runs with the whole run's figures.
"""

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.store.database import Store

from tests.command import assert_one_line_error, rulebench

runner = CliRunner()

EXPERIMENT = """\
[experiment]
name = "sharded"

[defaults]
limit = 12

[[models]]
spec = "scripted/echo"

[[models]]
spec = "scripted/fixed"
model_args = { reply = "OK" }

[[tasks]]
task = "inferential"
options = { tasks = ["kinship", "stringgame"], per_group = 2 }
"""


def experiment(tmp_path: Path, store: Path, *args: str) -> dict[str, Any]:
    """Run the file into `store`; its --json payload."""
    path = tmp_path / "exp.toml"
    path.write_text(EXPERIMENT)
    made = runner.invoke(app, ["experiment", str(path), "--store", str(store), "--json", *args])
    assert made.exit_code == 0, made.output
    payload: dict[str, Any] = json.loads(made.stdout)
    return payload


def outcomes(store: Path, run_id: str) -> list[tuple[str, Any]]:
    """A run's results, item by item: what must not depend on how the run was split."""
    with Store(store, readonly=True) as db:
        return sorted(
            (row.item_id, row.outcome and row.outcome.model_dump(mode="json"))
            for row in db.iter_results(run_id)
        )


def figures(row: dict[str, Any]) -> tuple[Any, ...]:
    """A batch row without its run id, timings and how it came about."""
    summary = {key: value for key, value in row["summary"].items() if key != "latency_s"}
    return row["model"], row["task"], row["status"], summary


def test_two_shards_merged_equal_the_whole_experiment(tmp_path: Path) -> None:
    whole = experiment(tmp_path, tmp_path / "whole.sqlite", "-o", str(tmp_path / "w"))
    assert whole["shard"] is None
    stores = [tmp_path / f"shard{index}.sqlite" for index in (1, 2)]
    shards = [
        experiment(tmp_path, store, "--shard", f"{index}/2", "-o", str(tmp_path / f"s{index}"))
        for index, store in enumerate(stores, 1)
    ]
    for index, payload in enumerate(shards, 1):
        assert payload["shard"] == f"{index}/2"
        assert [row["status"] for row in payload["runs"]] == ["completed", "completed"]
        summary = (tmp_path / f"s{index}" / "summary.md").read_text()
        assert f"Shard {index}/2 only" in summary
        assert summary.startswith(f"# experiment sharded, shard {index}/2\n")
    sizes = [[row["summary"]["items"] for row in payload["runs"]] for payload in shards]
    wholes = [row["summary"]["items"] for row in whole["runs"]]
    assert [a + b for a, b in zip(*sizes, strict=True)] == wholes
    assert all(0 < size < items for part in sizes for size, items in zip(part, wholes, strict=True))

    merged = tmp_path / "merged.sqlite"
    joined = runner.invoke(app, ["runs", "merge", *map(str, stores), "--into", str(merged)])
    assert joined.exit_code == 0, joined.output
    again = experiment(tmp_path, merged, "-o", str(tmp_path / "m"))
    assert [row["how"] for row in again["runs"]] == ["reused", "reused"]
    assert list(map(figures, again["runs"])) == list(map(figures, whole["runs"]))
    for mine, theirs in zip(again["runs"], whole["runs"], strict=True):
        merged_results = outcomes(merged, mine["run_id"])
        assert merged_results == outcomes(tmp_path / "whole.sqlite", theirs["run_id"])
        assert len(merged_results) == theirs["summary"]["items"]
    assert "Shard" not in (tmp_path / "m" / "summary.md").read_text()


def test_a_shard_run_again_is_reused_and_other_shards_are_new(tmp_path: Path) -> None:
    store, out = tmp_path / "one.sqlite", str(tmp_path / "out")
    first = experiment(tmp_path, store, "--shard", "1/2", "-o", out)
    assert [row["how"] for row in first["runs"]] == ["new", "new"]
    again = experiment(tmp_path, store, "--shard", "1/2", "-o", out)
    assert [row["how"] for row in again["runs"]] == ["reused", "reused"]
    assert [row["run_id"] for row in again["runs"]] == [row["run_id"] for row in first["runs"]]
    other = experiment(tmp_path, store, "--shard", "2/2", "-o", out)
    assert [row["how"] for row in other["runs"]] == ["new", "new"]
    with Store(store, readonly=True) as db:
        shards = {run.id: run.config["shard"] for run in db.list_runs()}
    assert shards[first["runs"][0]["run_id"]] == {"index": 1, "count": 2}
    assert shards[other["runs"][0]["run_id"]] == {"index": 2, "count": 2}


def test_the_default_output_folder_names_the_shard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    experiment(tmp_path, tmp_path / "s.sqlite", "--shard", "2/3")
    assert (tmp_path / "rulebench-experiment" / "sharded-shard-2-of-3" / "summary.md").exists()


def test_auto_reads_the_slurm_array(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SLURM_ARRAY_TASK_ID", "1")
    monkeypatch.setenv("SLURM_ARRAY_TASK_COUNT", "2")
    monkeypatch.delenv("SLURM_ARRAY_TASK_MIN", raising=False)
    monkeypatch.delenv("JOB_COMPLETION_INDEX", raising=False)
    payload = experiment(tmp_path, tmp_path / "s.sqlite", "--shard", "auto", "-o", str(tmp_path))
    assert payload["shard"] == "2/2"


@pytest.mark.parametrize("value", ["0/2", "3/2", "x/y"])
def test_a_bad_shard_is_one_line(tmp_path: Path, value: str) -> None:
    path = tmp_path / "exp.toml"
    path.write_text(EXPERIMENT)
    store = tmp_path / "never.sqlite"
    made = rulebench("experiment", str(path), "--shard", value, "--store", str(store))
    assert_one_line_error(made, f"--shard '{value}'")
    assert not store.exists()
