"""Every command's --help fits 80 columns, whole, reads without orphan lines, and shows each
option's default once.

The walk covers every command and subcommand the app has, hidden ones (old spellings kept for
a release) included, so a command added later is checked without being listed here.
"""

import re
from collections.abc import Iterator
from itertools import pairwise
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
SENTENCE_END = (".", ":", ";", "!", "?")


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


def description(text: str) -> list[str]:
    """The command's description: the lines between the usage line and the first panel."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("Usage:")) + 1
    found: list[str] = []
    for line in lines[start:]:
        if line.lstrip().startswith("\N{BOX DRAWINGS LIGHT ARC DOWN AND RIGHT}"):
            break
        found.append(line.rstrip())
    return found


def orphans(path: tuple[str, ...], text: str, columns: int = 80) -> list[str]:
    """Description lines broken off mid-sentence where the next word would have fitted.

    typer keeps the single line breaks of a docstring's later paragraphs, so a source line
    wider than the terminal is folded by rich and leaves a short line before the next source
    line. rich fills every line it folds, so a short line whose next word would have fitted
    (and that ends no sentence or list item) was broken by the source.
    """
    width = columns - 2  # rich pads the description by one column on each side
    lines = description(text)
    return [
        f"rulebench {' '.join(path)} --help: orphan line {line.strip()!r} before {after.strip()!r}"
        for line, after in pairwise(lines)
        if line.strip()
        and after.strip()
        # Indented lines (a list, an example) break where they were written.
        and not (line[1:2].isspace() or after[1:2].isspace())
        and len(line.strip()) < width * 2 // 3
        and not line.strip().endswith(SENTENCE_END)
        and len(line.strip()) + 1 + len(after.split()[0]) <= width
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


def test_no_description_has_an_orphan_line(monkeypatch: pytest.MonkeyPatch) -> None:
    found = [
        problem
        for path in command_paths()
        for problem in orphans(path, help_text(path, 80, monkeypatch))
    ]
    assert not found, "\n".join(found)


def test_list_names_every_section_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """The choices of `list`'s argument are read whole, not folded mid-word in a column."""
    from rulebench.cli.listing import SECTIONS

    text = help_text(("list",), 80, monkeypatch)
    panel = text.split("Arguments")[1].split("\N{BOX DRAWINGS LIGHT ARC UP AND RIGHT}")[0]
    for section in SECTIONS:
        assert re.search(rf"(?<![\w-]){re.escape(section)}(?![\w-])", panel), (section, panel)


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

    @faulty.command()
    def wrapped() -> None:
        """Wrap a paragraph.

        A paragraph whose source lines are wider than the terminal leaves an orphan line here
        when rich folds it, before the next source line.

        A list stays as written:
          item one
          item two
        Short sentences on their own lines.
        Are not orphans.
        """

    assert set(command_paths(faulty)) == {(), ("steps",), ("old",), ("wrapped",)}
    [orphan] = orphans(("wrapped",), help_text(("wrapped",), 80, monkeypatch, faulty))
    assert "before 'when rich folds it" in orphan
    assert not orphans(("wrapped",), help_text(("wrapped",), 120, monkeypatch, faulty))
    wide = help_text(("steps",), WIDE, monkeypatch, faulty)
    [twice] = defaults_twice(("steps",), wide)
    assert "--count" in twice and "--seed" not in twice
    assert too_wide(("steps",), help_text(("steps",), 80, monkeypatch, faulty))
