"""`rulebench list`: what can be run, by the names the other commands take.

The tables and the JSON come from `rulebench.listing` (which the Python API's `list_*`
functions read too); this module parses the section and prints them.
"""

import json
from typing import TYPE_CHECKING, Annotated

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import out
from rulebench.listing.sections import SECTIONS, Section, list_section
from rulebench.listing.tables import listing_json, section_table

if TYPE_CHECKING:
    from rich.table import Table

    from rulebench.listing.tables import ListingTable

__all__ = ["SECTIONS", "list_names", "register"]


def list_names(
    what: Annotated[
        Section | None,
        typer.Argument(
            metavar="SECTION",
            # Named in the help, which folds between words (the type column folds mid-word).
            show_choices=False,
            help=f"Only this section (default: all): {', '.join(SECTIONS)}.",
            show_default=False,
        ),
    ] = None,
    as_json: opt.JsonOption = False,
) -> None:
    """List tasks, inferential datasets, scenarios, suites, fixes, GCG targets, plugins."""
    chosen = [what] if what else list(SECTIONS)
    listed = {section: list_section(section) for section in chosen}
    if as_json:
        out.print_json(json.dumps(listing_json(listed)), ensure_ascii=True)
        return
    for section, entries in listed.items():
        out.print(rich_table(section_table(section, entries)))


def register(app: typer.Typer) -> None:
    """Add the command to the main app as `rulebench list`."""
    app.command("list")(list_names)


def rich_table(listing: "ListingTable") -> "Table":
    """A listing table drawn by rich, its names kept on one line each."""
    from rich.table import Table
    from rich.text import Text

    # At least as wide as its title: an empty table (no plugins) would fold the title otherwise.
    table = Table(title=listing.title, title_justify="left", min_width=len(listing.title))
    for column in listing.columns:
        table.add_column(column, no_wrap=column in listing.name_columns)
    for row in listing.rows:
        # Text cells: as markup, "[REDACTED]" or "rulebench[hf]" would lose their brackets.
        table.add_row(*(Text(cell) for cell in row))
    return table
