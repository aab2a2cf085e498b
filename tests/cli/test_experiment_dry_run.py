"""`experiment --dry-run` exits as running the file would: 1 when a run cannot start."""

from pathlib import Path

from typer.testing import CliRunner

from rulebench.cli.app import app

TOML = """\
[[models]]
spec = "{spec}"

[[tasks]]
task = "smoke"
"""


def plan(tmp_path: Path, spec: str) -> tuple[int, str, str]:
    path = tmp_path / "exp.toml"
    path.write_text(TOML.format(spec=spec), encoding="utf-8")
    args = ["experiment", str(path), "--store", str(tmp_path / "s.sqlite"), "--dry-run"]
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.stdout, result.stderr


def test_a_row_that_cannot_start_makes_the_dry_run_exit_1(tmp_path: Path) -> None:
    code, stdout, stderr = plan(tmp_path, "nosuch/echo")
    assert code == 1
    assert "1. nosuch/echo on smoke: cannot start: " in stdout
    assert "1 of 1 runs cannot start" in stderr


def test_a_plan_where_every_row_starts_exits_0(tmp_path: Path) -> None:
    code, stdout, _ = plan(tmp_path, "scripted/echo")
    assert code == 0
    assert "1. scripted/echo on smoke: start" in stdout
    assert not (tmp_path / "s.sqlite").exists()
