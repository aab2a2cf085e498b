"""`rulebench list`: what can be run, by the names the other commands take.

The entries come from `rulebench.listing` (which the Python API's `list_*` functions read too);
this module parses the section and prints a table or JSON.
"""

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer
from pydantic import JsonValue

from rulebench.cli import options as opt
from rulebench.cli.console import out
from rulebench.listing.sections import SECTIONS, Section, list_section

if TYPE_CHECKING:
    from rich.table import Table

    from rulebench.listing.entry import Listed
    from rulebench.listing.scenarios import ListedScenario

__all__ = ["SECTIONS", "list_names", "register"]

Rows = list[tuple[str, ...]]
_Entry = TypeVar("_Entry")


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
        payload = {section: [_json(e) for e in entries] for section, entries in listed.items()}
        out.print_json(json.dumps(payload), ensure_ascii=True)
        return
    for section, entries in listed.items():
        title, header, rows = _TABLES[section]
        out.print(_table(title, header, rows(entries)))


def register(app: typer.Typer) -> None:
    """Add the command to the main app as `rulebench list`."""
    app.command("list")(list_names)


def _json(entry: "Listed") -> dict[str, JsonValue]:
    """An entry as `--json` has written it: absent fields left out, 0.1's suite key kept."""
    found: dict[str, JsonValue] = entry.model_dump(mode="json", exclude_none=True)
    if "default_per_group" not in found:
        return found
    with_old: dict[str, JsonValue] = {}
    for key, value in found.items():
        with_old[key] = value
        if key == "default_per_group":
            with_old["default_per_behavior"] = value  # 0.1's name, kept for one release
    return with_old


def _plugin_rows(entries: Sequence["Listed"]) -> Rows:
    from rulebench.listing.plugins import ListedPlugin, PluginProblem

    rows: Rows = []
    for e in entries:
        if isinstance(e, ListedPlugin):
            use = e.use if e.error is None else f"error: {e.error}"
            rows.append((e.kind, e.name, e.package, use))
        elif isinstance(e, PluginProblem):
            rows.append((e.kind, "?", "?", f"error: {e.error}"))
    return rows


def _task_rows(entries: Sequence["Listed"]) -> Rows:
    from rulebench.listing.tasks import ListedTask

    return [(e.name, e.command, e.description) for e in _only(entries, ListedTask)]


def _inferential_rows(entries: Sequence["Listed"]) -> Rows:
    from rulebench.listing.tasks import BrokenInferentialTask, ListedInferentialTask

    rows: Rows = []
    for e in entries:
        if isinstance(e, BrokenInferentialTask):
            rows.append((e.name, e.package, "", f"error: {e.error}"))
        elif isinstance(e, ListedInferentialTask):
            few, all_rules = e.rules_few_all
            rows.append((e.name, e.source, f"{few}/{all_rules}", e.description))
    return rows


def _scenario_rows(entries: Sequence["Listed"]) -> Rows:
    from rulebench.listing.scenarios import ListedScenario

    return [
        (e.name, e.kind, "/".join(e.versions), _rules_cell(e))
        for e in _only(entries, ListedScenario)
    ]


def _rules_cell(scenario: "ListedScenario") -> str:
    lines = []
    for rule in scenario.rules:
        note = f", {rule.versions[0]} only" if len(rule.versions) == 1 else ""
        lines.append(f"{rule.behavior} ({rule.bucket}{note})")
    return "\n".join(lines)


def _suite_rows(entries: Sequence["Listed"]) -> Rows:
    from rulebench.listing.suites import ListedGeneratedSuite, ListedOfficialSuite

    rows: Rows = []
    for e in entries:
        if isinstance(e, ListedGeneratedSuite):
            split = ", ".join(f"{bucket} {n}" for bucket, n in e.buckets.items())
            default = _default_size(e.default_per_group, e.default_cases)
            rows.append((e.name, e.source, f"{e.cases} ({split})", default))
        elif isinstance(e, ListedOfficialSuite):
            rows.append((e.name, e.source, str(e.cases), "all"))
    return rows


def _default_size(per_group: int | str, cases: int | None) -> str:
    default = "all" if per_group == "all" else f"{per_group} per behavior"
    return default if cases is None else f"{default} ({cases})"


def _gcg_rows(entries: Sequence["Listed"]) -> Rows:
    from rulebench.listing.scenarios import ListedGcgTarget

    return [
        (e.behavior, e.bucket, e.target.replace("\n", "\\n"), e.when, e.may_pass or "never")
        for e in _only(entries, ListedGcgTarget)
    ]


def _fix_rows(entries: Sequence["Listed"]) -> Rows:
    from rulebench.listing.scenarios import ListedStrictFix

    return [(e.name, e.description) for e in _only(entries, ListedStrictFix)]


_TABLES: dict[Section, tuple[str, tuple[str, ...], Callable[[Sequence["Listed"]], Rows]]] = {
    "tasks": ("Tasks", ("task", "run with", "what"), _task_rows),
    "inferential": (
        "Inferential tasks (rulebench run inferential -t NAME)",
        ("task", "source", "rules few/all", "what"),
        _inferential_rows,
    ),
    "scenarios": (
        "Scenarios (--scenario NAME, rulebench play NAME)",
        ("scenario", "kind", "versions", "rules: behavior (bucket)"),
        _scenario_rows,
    ),
    "suites": (
        "Suites (--suite NAME; official files: --suite FOLDER_OR_FILE)",
        ("suite", "source", "cases", "run by default (--full: all)"),
        _suite_rows,
    ),
    "strict-fixes": ("Strict fixes (--mode strict)", ("fix", "what it changes"), _fix_rows),
    "gcg-targets": (
        "GCG targets per rule (fields are the scenario's params; \\n: a line break)",
        ("behavior", "bucket", "target", "when", "a target-prefixed reply may still pass"),
        _gcg_rows,
    ),
    "plugins": (
        "Plugins (installed packages' entry points, --include folders)",
        ("kind", "name", "package", "use"),
        _plugin_rows,
    ),
}
"""Each section's title, columns and rows."""


def _only(entries: Sequence["Listed"], kind: type[_Entry]) -> list[_Entry]:
    return [entry for entry in entries if isinstance(entry, kind)]


def _table(title: str, header: tuple[str, ...], rows: Rows) -> "Table":
    from rich.table import Table
    from rich.text import Text

    # At least as wide as its title: an empty table (no plugins) would fold the title otherwise.
    table = Table(title=title, title_justify="left", min_width=len(title))
    for column in header:
        table.add_column(column, no_wrap=column in ("task", "scenario", "suite", "fix"))
    for row in rows:
        # Text cells: as markup, "[REDACTED]" or "rulebench[hf]" would lose their brackets.
        table.add_row(*(Text(cell) for cell in row))
    return table
