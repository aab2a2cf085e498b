"""`rulebench list` prints the library's entries exactly as before they moved out of the CLI.

The expected files were captured from the CLI before the move (COLUMNS=200, no plugins); only
sections whose text is the same on every machine are pinned.
"""

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from rulebench.cli import listing
from rulebench.listing.sections import SECTIONS, Section, list_section

EXPECTED = Path(__file__).parent / "listing_expected"
runner = CliRunner()


def list_app() -> typer.Typer:
    app = typer.Typer()
    listing.register(app)

    @app.callback()
    def main() -> None:
        """A group, so that `list` stays a subcommand as in the real app."""

    return app


def shown(*args: str) -> str:
    result = runner.invoke(list_app(), ["list", *args], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("section", ["tasks", "suites", "strict-fixes"])
def test_a_table_is_as_it_was(section: str) -> None:
    assert shown(section) == (EXPECTED / f"{section}.txt").read_text(encoding="utf-8")


def test_the_suites_json_is_as_it_was_with_the_old_key() -> None:
    assert json.loads(shown("suites", "--json")) == json.loads(
        (EXPECTED / "suites.json").read_text(encoding="utf-8")
    )


@pytest.mark.parametrize("section", SECTIONS)
def test_the_json_holds_every_entry_of_the_library(section: Section) -> None:
    found = json.loads(shown(section, "--json"))[section]
    entries = list_section(section)
    assert len(found) == len(entries)
    for row, entry in zip(found, entries, strict=True):
        expected = entry.model_dump(mode="json", exclude_none=True)
        assert {k: v for k, v in row.items() if k != "default_per_behavior"} == expected


def test_every_section_prints_in_the_order_of_sections() -> None:
    titles = [line.split(" (")[0].strip() for line in shown().splitlines() if line[:1].isalpha()]
    assert titles == [
        "Tasks",
        "Inferential tasks",
        "Scenarios",
        "Suites",
        "Strict fixes",
        "GCG targets per rule",
        "Plugins",
    ]
