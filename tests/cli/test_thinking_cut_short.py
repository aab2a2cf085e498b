"""A run whose thinking was cut short says so in its summary, which still fits 80 columns."""

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app

runner = CliRunner()


def test_the_cut_column_fits_eighty_columns_with_both_rates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    store = str(tmp_path / "s.sqlite")
    # smoke has both rates; one token per reply ends every reply inside its thinking.
    args = ["-M", "reply=Paris", "-M", "thinking=maybe Lyon", "--max-tokens", "1"]
    result = runner.invoke(app, ["run", "smoke", "-m", "scripted/fixed", *args, "--store", store])
    assert result.exit_code == 0, result.output
    [run_id] = [
        line.split()[1].rstrip(":")
        for line in result.stdout.splitlines()
        if line.startswith("Run ")
    ]
    result = runner.invoke(app, ["runs", "show", run_id, "--store", store])
    assert result.exit_code == 0, result.output
    assert "…" not in result.stdout
    assert all(len(line) <= 80 for line in result.stdout.splitlines()), result.stdout
    assert "cut short" in result.stdout
    [total] = [line for line in result.stdout.splitlines() if line.startswith("│ all")]
    cells = [cell.strip() for cell in total.split("│")]
    # group, items, errors, accuracy, pass, cut (every reply), whole tokens in/out
    assert cells[1:4] == ["all", "6", "0"] and cells[6] == "6"
    assert re.fullmatch(r"\d+/\d+", cells[7]), total  # cropped at 80 columns it reads "151/"
