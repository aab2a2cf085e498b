"""`run inferential` options say what they do: --per-group vs -n, choices, loglik scoring."""

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.store.database import Store

from tests.command import rulebench

runner = CliRunner()
ECHO = ["run", "inferential", "-m", "scripted/echo", "--json"]


def stored_cells(store: Path) -> tuple[Any, list[str]]:
    """The run's stored task config and the cell of each result, in item order."""
    with Store(store) as db:
        [run] = db.list_runs()
        cells = [str(result.metadata["cell"]) for result in db.iter_results(run.id)]
    return run.config["task_config"], sorted(cells)


def test_per_group_sets_samples_per_task_in_every_cell(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    result = runner.invoke(app, [*ECHO, "--per-group", "2", "--store", str(store)])
    assert result.exit_code == 0, result.output
    config, cells = stored_cells(store)
    assert config["per_group"] == 2
    assert cells == ["kinship few/nl/direct"] * 2 + ["stringgame few/nl/direct"] * 2


def test_limit_takes_the_first_items_in_task_setting_sample_order(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    result = runner.invoke(app, [*ECHO, "--per-group", "5", "-n", "3", "--store", str(store)])
    assert result.exit_code == 0, result.output
    config, cells = stored_cells(store)
    # The first three items are all kinship: -n cuts the item list, it is not per task.
    assert config["per_group"] == 5 and cells == ["kinship few/nl/direct"] * 3
    shown = runner.invoke(app, ["run", "inferential", "--help"], env={"COLUMNS": "200"})
    assert "first N items in task, setting, sample order" in " ".join(
        shown.stdout.replace("│", " ").split()
    )


@pytest.mark.parametrize("old", ["--n", "--samples"])
def test_the_old_spellings_still_work_with_a_warning(tmp_path: Path, old: str) -> None:
    store = tmp_path / "s.sqlite"
    result = runner.invoke(app, [*ECHO, old, "1", "--store", str(store)])
    assert result.exit_code == 0, result.output
    assert f"{old} is now --per-group" in result.stderr
    assert stored_cells(store)[0]["per_group"] == 1
    both = runner.invoke(app, [*ECHO, old, "1", "--per-group", "2", "--store", str(store)])
    assert both.exit_code == 1 and "give --per-group only" in str(both.exception)


@pytest.mark.subprocess
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["-q", "few", "-q", "some"],
            "error: --quantity 'some' is not one of none, golden, few, all",
        ),
        (["--form", "xml"], "error: --form 'xml' is not one of nl, fol"),
        (
            ["-t", "kinship", "--scoring", "loglik"],
            "error: scoring loglik needs a model that scores answers by log-likelihood; "
            "scripted/echo cannot",
        ),
        (
            ["-t", "kinship", "-t", "stringgame", "--scoring", "loglik-norm"],  # named: refused
            "error: --scoring loglik-norm: task 'stringgame' has open answers",
        ),
    ],
)
def test_bad_values_are_one_red_line_before_the_run(
    args: list[str], message: str, tmp_path: Path
) -> None:
    store = tmp_path / "s.sqlite"
    result = rulebench(*ECHO[:4], *args, "--store", str(store))
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith(message), result.stderr
    assert "resume" not in result.stderr
    if store.exists():  # nothing started: no run to resume
        with Store(store) as db:
            assert db.list_runs() == []


def test_loglik_with_an_http_model_is_refused_before_any_request(tmp_path: Path) -> None:
    # Port 9 (discard) is never asked: the check comes before the run and any request.
    store = tmp_path / "s.sqlite"
    result = runner.invoke(
        app,
        [
            *ECHO[:2],
            "-t",
            "kinship",
            "--scoring",
            "loglik",
            "-m",
            "openai-api/local/m",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--store",
            str(store),
        ],
    )
    assert result.exit_code == 1
    assert "openai-api/local/m cannot" in str(result.exception)
