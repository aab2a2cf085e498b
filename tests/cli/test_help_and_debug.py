"""--help shows no type beside flags, and --debug works wherever it is typed."""

from pathlib import Path

import pytest

from rulebench.cli.app import debug_first

from tests.command import rulebench

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`


@pytest.mark.parametrize(
    "command",
    [(), ("run",), ("run", "smoke"), ("run", "inferential"), ("runs", "list"), ("runs", "export")],
)
def test_flags_have_no_bool_label(command: tuple[str, ...]) -> None:
    result = rulebench(*command, "--help")
    assert result.returncode == 0, result.stderr
    assert "--help" in result.stdout and "<bool>" not in result.stdout
    if command in (("run", "smoke"), ("runs", "list")):
        [json_line] = [line for line in result.stdout.splitlines() if "--json" in line]
        assert "Print machine-readable JSON" in json_line


@pytest.mark.parametrize("where", ["after the subcommand", "at the end", "first"])
def test_debug_anywhere_shows_the_traceback(where: str, tmp_path: Path) -> None:
    args = ["run", "smoke", "-m", "nope/x", "--store", f"{tmp_path}/s.sqlite"]
    position = {"after the subcommand": 2, "at the end": len(args), "first": 0}[where]
    args.insert(position, "--debug")
    result = rulebench(*args)
    assert result.returncode == 1
    assert "Traceback" in result.stderr and "unknown model provider 'nope'" in result.stderr


def test_without_debug_there_is_no_traceback(tmp_path: Path) -> None:
    result = rulebench("run", "smoke", "-m", "nope/x", "--store", f"{tmp_path}/s.sqlite")
    assert result.returncode == 1 and "Traceback" not in result.stderr


def test_debug_after_a_double_dash_is_left_alone() -> None:
    assert debug_first(["run", "smoke", "--debug"]) == ["--debug", "run", "smoke"]
    assert debug_first(["run", "--", "--debug"]) == ["run", "--", "--debug"]
    assert debug_first(["runs", "list"]) == ["runs", "list"]
