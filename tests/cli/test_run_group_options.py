"""Options given to `rulebench run` before a subcommand apply to it, or are refused.

They used to be dropped without a word: `run --store X smoke` wrote to the default store,
`run --json smoke` printed a table, `run --resume ID smoke` started a new run.
"""

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from rulebench.cli import run
from rulebench.cli.app import app
from rulebench.engine.store.database import Store

from tests.command import rulebench

runner = CliRunner()
SMOKE = ["smoke", "-m", "scripted/echo"]


def only_run(path: Path) -> dict[str, Any]:
    with Store(path) as store:
        [stored] = store.list_runs()
        return stored.config


def test_store_and_json_before_the_subcommand_apply_to_it(
    tmp_path: Path, isolated_store_location: Path
) -> None:
    store = tmp_path / "given.sqlite"
    result = runner.invoke(app, ["run", "--store", str(store), "--json", *SMOKE])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["run"]["task"] == "smoke" and payload["summary"][-1]["items"] == 6
    assert only_run(store)["task"] == "smoke"
    assert not isolated_store_location.exists()


def test_the_subcommands_own_option_wins(tmp_path: Path) -> None:
    group_store, own_store = tmp_path / "group.sqlite", tmp_path / "own.sqlite"
    result = runner.invoke(
        app, ["run", "--store", str(group_store), "-c", "2", *SMOKE, "--store", str(own_store)]
    )
    assert result.exit_code == 0, result.output
    assert only_run(own_store)["concurrency"] == 2
    assert not group_store.exists()


def test_concurrency_and_base_url_before_the_subcommand_apply_to_it(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    result = runner.invoke(
        app,
        ["run", "-c", "3", "--base-url", "http://127.0.0.1:9/v1", *SMOKE, "--store", str(store)],
    )
    assert result.exit_code == 0, result.output
    config = only_run(store)
    assert config["concurrency"] == 3 and config["base_url"] == "http://127.0.0.1:9/v1"


@pytest.mark.subprocess
def test_resume_with_a_subcommand_is_one_red_line(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    result = rulebench("run", "--resume", "20260101-000000-abcdef", *SMOKE, "--store", str(store))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    [line] = [line for line in result.stderr.splitlines() if line.strip()]
    assert line.startswith("error: --resume") and "drop 'smoke'" in line
    assert not store.exists()


def test_a_group_option_the_subcommand_lacks_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def bare() -> None:
        """A subcommand with none of the group's options."""
        raise AssertionError("must not run")

    monkeypatch.setattr(
        run.app,
        "registered_commands",
        [*run.app.registered_commands, typer.models.CommandInfo(name="bare", callback=bare)],
    )
    result = runner.invoke(app, ["run", "--json", "--fail-on-error", "0.5", "bare"])
    assert result.exit_code == 1
    assert "has no --json, --fail-on-error option" in str(result.exception)
