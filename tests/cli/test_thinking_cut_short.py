"""A run whose thinking was cut short says so in its summary, which still fits 80 columns."""

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app

runner = CliRunner()


def test_replies_cut_in_their_thinking_are_counted_not_scored_within_eighty_columns(
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
    # group, items, errors, cut (every reply), whole tokens in/out: no reply has an answer, so
    # no accuracy or pass rate is printed (an empty answer is neither wrong nor a rule kept).
    assert cells[1:5] == ["all", "6", "0", "6"]
    assert re.fullmatch(r"\d+/\d+", cells[5]), total  # cropped at 80 columns it reads "151/"
    assert "accuracy" not in result.stdout and "pass" not in result.stdout
