"""`runs export` writes what the file name says, or refuses: never JSONL named .parquet."""

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app

from tests.command import rulebench

runner = CliRunner()


@pytest.fixture
def finished_run(tmp_path: Path) -> tuple[str, str]:
    """(run id, store path) of a finished smoke run."""
    store = str(tmp_path / "s.sqlite")
    result = runner.invoke(app, ["run", "smoke", "-m", "scripted/echo", "--json", "--store", store])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["run"]["id"], store


@pytest.mark.subprocess
@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("x.parquet", [], "error: --output {path}: cannot write .parquet; exports are JSONL"),
        ("x.json", [], "error: --output {path}: cannot write .json; exports are JSONL"),
        ("x", [], "error: --output {path}: cannot write a file without a suffix"),
        (
            "x.jsonl",
            ["-f", "csv"],
            "error: --output {path} names a .jsonl file but --format is csv",
        ),
    ],
)
def test_a_suffix_that_is_not_the_format_is_one_red_line(
    finished_run: tuple[str, str], tmp_path: Path, name: str, args: list[str], message: str
) -> None:
    run_id, store = finished_run
    path = tmp_path / name
    result = rulebench("runs", "export", run_id, "-o", str(path), *args, "--store", store)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    [line] = [line for line in result.stderr.splitlines() if line.strip()]
    assert line.startswith(message.format(path=path)), line
    assert not path.exists()


@pytest.mark.parametrize(
    ("name", "args", "kind"),
    [("r.JSONL", [], "jsonl"), ("r.csv", [], "csv"), ("r.txt", ["-f", "csv"], "csv")],
)
def test_the_suffix_or_format_decides(
    finished_run: tuple[str, str], tmp_path: Path, name: str, args: list[str], kind: str
) -> None:
    run_id, store = finished_run
    path = tmp_path / name
    result = runner.invoke(
        app, ["runs", "export", run_id, "-o", str(path), *args, "--store", store]
    )
    assert result.exit_code == 0, result.output
    assert f"({kind})" in result.stderr
    with path.open(newline="") as handle:
        if kind == "csv":
            assert len(list(csv.DictReader(handle))) == 6
        else:
            assert len([json.loads(line) for line in handle]) == 6
