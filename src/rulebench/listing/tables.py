"""The listing as tables and as JSON: what `rulebench list` shows, for any front end to render.

Each section is one `ListingTable`: a title, its columns and rows of plain text cells (a
front end escapes them for its own markup). `listing_json` is what `rulebench list --json`
writes, old keys kept for the releases that promised them.
"""

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, JsonValue

from rulebench.listing.entry import Listed
from rulebench.listing.plugins import ListedPlugin, PluginProblem
from rulebench.listing.scenarios import ListedGcgTarget, ListedScenario, ListedStrictFix
from rulebench.listing.sections import Section
from rulebench.listing.suites import ListedGeneratedSuite, ListedOfficialSuite
from rulebench.listing.tasks import BrokenInferentialTask, ListedInferentialTask, ListedTask

Row = tuple[str, ...]
_Entry = TypeVar("_Entry")
NAME_COLUMNS = ("task", "scenario", "suite", "fix")
"""Columns holding the names commands take: a renderer keeps each on one line."""


class ListingTable(BaseModel):
    """One section of the listing as a table of plain text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    title: str
    columns: tuple[str, ...]
    rows: tuple[Row, ...]
    """A cell may hold line breaks (a scenario's rules, one a line)."""

    @property
    def name_columns(self) -> tuple[str, ...]:
        """The columns a renderer must not fold (`NAME_COLUMNS` present here)."""
        return tuple(column for column in self.columns if column in NAME_COLUMNS)


def section_table(section: Section, entries: Sequence[Listed]) -> ListingTable:
    """The table `rulebench list` shows for `section`'s entries (`list_section`)."""
    title, columns, rows = _TABLES[section]
    return ListingTable(title=title, columns=columns, rows=tuple(rows(entries)))


def listing_json(listed: Mapping[Section, Sequence[Listed]]) -> dict[str, JsonValue]:
    """`rulebench list --json`: each section's entries, absent fields left out."""
    return {section: [entry_json(e) for e in entries] for section, entries in listed.items()}


def entry_json(entry: Listed) -> dict[str, JsonValue]:
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


def _plugin_rows(entries: Sequence[Listed]) -> list[Row]:
    rows: list[Row] = []
    for e in entries:
        if isinstance(e, ListedPlugin):
            use = e.use if e.error is None else f"error: {e.error}"
            rows.append((e.kind, e.name, e.package, use))
        elif isinstance(e, PluginProblem):
            rows.append((e.kind, "?", "?", f"error: {e.error}"))
    return rows


def _task_rows(entries: Sequence[Listed]) -> list[Row]:
    return [(e.name, e.command, e.description) for e in _only(entries, ListedTask)]


def _inferential_rows(entries: Sequence[Listed]) -> list[Row]:
    rows: list[Row] = []
    for e in entries:
        if isinstance(e, BrokenInferentialTask):
            rows.append((e.name, e.package, "", f"error: {e.error}"))
        elif isinstance(e, ListedInferentialTask):
            few, all_rules = e.rules_few_all
            rows.append((e.name, e.source, f"{few}/{all_rules}", e.description))
    return rows


def _scenario_rows(entries: Sequence[Listed]) -> list[Row]:
    return [
        (e.name, e.kind, "/".join(e.versions), _rules_cell(e))
        for e in _only(entries, ListedScenario)
    ]


def _rules_cell(scenario: ListedScenario) -> str:
    lines = []
    for rule in scenario.rules:
        note = f", {rule.versions[0]} only" if len(rule.versions) == 1 else ""
        lines.append(f"{rule.behavior} ({rule.bucket}{note})")
    return "\n".join(lines)


def _suite_rows(entries: Sequence[Listed]) -> list[Row]:
    rows: list[Row] = []
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


def _gcg_rows(entries: Sequence[Listed]) -> list[Row]:
    return [
        (e.behavior, e.bucket, e.target.replace("\n", "\\n"), e.when, e.may_pass or "never")
        for e in _only(entries, ListedGcgTarget)
    ]


def _fix_rows(entries: Sequence[Listed]) -> list[Row]:
    return [(e.name, e.description) for e in _only(entries, ListedStrictFix)]


def _only(entries: Sequence[Listed], kind: type[_Entry]) -> list[_Entry]:
    return [entry for entry in entries if isinstance(entry, kind)]


_TABLES: dict[Section, tuple[str, tuple[str, ...], Callable[[Sequence[Listed]], list[Row]]]] = {
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
