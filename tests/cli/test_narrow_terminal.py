"""At 80 columns tables wrap what they must and cut nothing: whole run ids, counts and rates."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunStatus

runner = CliRunner()
LONG_MODEL = "openai-api/vllm/meta-llama/Llama-3.1-8B-Instruct"


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("COLUMNS", "80")
    yield


def assert_fits_uncut(text: str) -> None:
    assert "…" not in text, text
    assert all(len(line) <= 80 for line in text.splitlines()), text


def test_run_summary_keeps_every_cell(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    # smoke has both rates (accuracy and pass): the widest summary table.
    result = runner.invoke(app, ["run", "smoke", "-m", "scripted/echo", "--store", store])
    assert result.exit_code == 0, result.output
    assert_fits_uncut(result.stdout)
    listed = runner.invoke(app, ["runs", "list", "--json", "--store", store])
    [run] = json.loads(listed.stdout)
    assert f"Run {run['id']}" in result.stdout
    assert "100.0" in result.stdout and "[34.2-100.0]" in result.stdout


def test_runs_list_keeps_whole_ids(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        ids = []
        runs: list[tuple[str, RunStatus]] = [
            ("inferential", "interrupted"),
            ("scenarios", "failed"),
        ]
        for task, status in runs:
            run = db.create_run(task, LONG_MODEL, {})
            db.finish_run(run.id, status, {})
            ids.append(run.id)
    result = runner.invoke(app, ["runs", "list", "--store", str(store)])
    assert result.exit_code == 0, result.output
    assert_fits_uncut(result.stdout)
    for run_id in ids:
        assert run_id in result.stdout
    assert "interrupted" in result.stdout and "inferential" in result.stdout
    # The model spec wraps instead: all of it is there, over several lines.
    model_column = "".join(
        line.split("│")[3].strip() for line in result.stdout.splitlines() if line.count("│") == 7
    )
    assert LONG_MODEL in model_column


def test_a_paired_report_keeps_both_model_names_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Found by a new user: the paired comparison showed `scripted/ec…` on both sides.
    monkeypatch.chdir(tmp_path)  # two models write their batch folder here
    store = str(tmp_path / "s.sqlite")
    models = ["-m", "scripted/echo", "-m", "scripted/rules"]
    ran = runner.invoke(app, ["run", "scenarios", *models, "--per-group", "1", "--store", store])
    assert ran.exit_code == 0, ran.output
    listed = runner.invoke(app, ["runs", "list", "--json", "--store", store])
    ids = [run["id"] for run in json.loads(listed.stdout)]
    args = ["report", *ids, "--store", store, "-o", str(tmp_path / "report")]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert_fits_uncut(result.stdout)
    paired = result.stdout.split("Paired comparison")[1].split("Tokens and cost")[0]
    [row] = [line.split() for line in paired.splitlines() if line.strip().startswith("scripted/")]
    assert sorted(row[:2]) == ["scripted/echo", "scripted/rules"]


def test_a_report_table_folds_a_name_too_long_for_the_line() -> None:
    from rich.console import Console

    from rulebench.cli.markdown_view import TerminalMarkdown

    long_name = "openai-api/vllm/" + "x" * 90
    console = Console(width=80, record=True)
    console.print(TerminalMarkdown(f"| model | n |\n|---|---|\n| {long_name} | 3 |\n"))
    text = console.export_text()
    assert_fits_uncut(text)
    rows = text.split("─ \n")[1].splitlines()  # below the header's rule
    assert "".join(line.split()[0] for line in rows if line.strip()) == long_name
