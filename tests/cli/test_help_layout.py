"""Every command's --help fits 80 columns, whole, and shows each option's default once.

The walk covers every command and subcommand the app has, hidden ones (old spellings kept for
a release) included, so a command added later is checked without being listed here.
"""

import re
from collections.abc import Iterator
from typing import Annotated

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from rulebench.cli.app import app

runner = CliRunner()
DEFAULT_TAG = re.compile(r"\[default: [^\]]*\]")
# "default" as a word of the help text, not inside an option name such as --no-default-x.
DEFAULT_WORD = re.compile(r"(?<![-\w])default(?![-\w])", re.IGNORECASE)
WIDE = 2000
"""Columns at which each option's row (its help text and its tags) is one line."""


def command_paths(root_app: typer.Typer = app) -> Iterator[tuple[str, ...]]:
    """The path of every command and group below the root (the root itself first)."""
    root = typer.main.get_command(root_app)
    context = root.make_context("rulebench", ["--help"], resilient_parsing=True)

    def walk(command: object, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
        yield path
        names = getattr(command, "list_commands", None)
        if names is None:
            return
        for name in names(context):
            # A group's get_command: every group in the walk has list_commands and it.
            sub = command.get_command(context, name)  # type: ignore[attr-defined]
            yield from walk(sub, (*path, name))

    yield from walk(root, ())


def help_text(
    path: tuple[str, ...], columns: int, monkeypatch: pytest.MonkeyPatch, root: typer.Typer = app
) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    result = runner.invoke(root, [*path, "--help"])
    assert result.exit_code == 0, (path, result.output, result.exception)
    return result.stdout


def too_wide(path: tuple[str, ...], text: str) -> list[str]:
    """The lines of `text` wider than 80 columns or cut short, named by command.

    rich folds text to the width it is given, but a word longer than its column is cut with
    an ellipsis: the reader then never sees the end of a path or a default.
    """
    return [
        f"rulebench {' '.join(path)} --help: cut or over 80 columns: {line.rstrip()}"
        for line in text.splitlines()
        if len(line) > 80 or "\N{HORIZONTAL ELLIPSIS}" in line
    ]


def defaults_twice(path: tuple[str, ...], wide_text: str) -> list[str]:
    """Option rows (of help rendered `WIDE`) whose help text names a default beside the tag."""
    return [
        f"rulebench {' '.join(path)}: {' '.join(line.split())}"
        for line in wide_text.splitlines()
        if DEFAULT_TAG.search(line) and DEFAULT_WORD.search(DEFAULT_TAG.sub("", line))
    ]


def test_the_walk_finds_nested_commands() -> None:
    paths = set(command_paths())
    assert {
        ("report",),
        ("report", "scenarios"),
        ("run", "inferential"),
        ("attack", "gcg"),
    } <= paths
    assert len(paths) > 30


def test_every_help_fits_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    found = [
        problem
        for path in command_paths()
        for problem in too_wide(path, help_text(path, 80, monkeypatch))
    ]
    assert not found, "\n".join(found)


def test_no_option_shows_its_default_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    found = [
        problem
        for path in command_paths()
        for problem in defaults_twice(path, help_text(path, WIDE, monkeypatch))
    ]
    assert not found, "\n".join(found)


def test_the_checks_find_a_default_said_twice_and_a_wide_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The checks above against a small app with both faults, and hidden commands walked."""
    faulty = typer.Typer()

    @faulty.command()
    def steps(
        count: Annotated[int, typer.Option(help="Steps (default 5).")] = 5,
        seed: Annotated[int, typer.Option(help="Seed; Default: 0.", show_default=False)] = 0,
        folder: Annotated[str, typer.Option(help="Into tmp/" + "x" * 60 + "/.")] = "",
    ) -> None:
        """Count steps."""

    @faulty.command(hidden=True)
    def old() -> None:
        """An old spelling."""

    assert set(command_paths(faulty)) == {(), ("steps",), ("old",)}
    wide = help_text(("steps",), WIDE, monkeypatch, faulty)
    [twice] = defaults_twice(("steps",), wide)
    assert "--count" in twice and "--seed" not in twice
    assert too_wide(("steps",), help_text(("steps",), 80, monkeypatch, faulty))
