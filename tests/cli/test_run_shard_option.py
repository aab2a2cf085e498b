"""`--shard` reaches the stored spec of every run command; a bad value is one line."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.core.errors import ConfigError


@pytest.mark.parametrize("value", ["0/4", "5/4", "x/y", "auto"])
def test_a_bad_shard_is_one_line_and_runs_nothing(tmp_path: Path, value: str) -> None:
    store = tmp_path / "s.sqlite"
    args = ["run", "smoke", "-m", "scripted/echo", "--store", str(store), "--shard", value]
    result = CliRunner().invoke(
        app, args, env={"SLURM_ARRAY_TASK_ID": None, "JOB_COMPLETION_INDEX": None}
    )
    # The entry point prints a ConfigError as one red line (tests/cli/test_cli.py).
    assert isinstance(result.exception, ConfigError)
    assert str(result.exception).startswith("--shard") and "\n" not in str(result.exception)
    assert not store.exists()


def test_auto_reads_the_scheduler_index_into_the_stored_spec(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    args = ["run", "smoke", "-m", "scripted/echo", "--store", str(store), "--shard", "auto/3"]
    result = CliRunner().invoke(
        app, [*args, "--json"], env={"JOB_COMPLETION_INDEX": "2", "SLURM_ARRAY_TASK_ID": None}
    )
    payload = json.loads(result.stdout)
    assert payload["run"]["config"]["shard"] == {"index": 3, "count": 3}
    assert payload["run"]["notes"]["shard"]["whole_items"] == 6


def test_a_sharded_batch_says_it_is_a_shard_in_its_title(tmp_path: Path) -> None:
    args = ["run", "smoke", "-m", "scripted/echo", "-m", "scripted/fixed", "--shard", "1/2"]
    result = CliRunner().invoke(
        app, [*args, "--store", str(tmp_path / "s.sqlite"), "-o", str(tmp_path / "out")]
    )
    assert result.exit_code == 0, result.output
    assert "smoke on 2 models, shard 1/2 (batch " in result.stdout
