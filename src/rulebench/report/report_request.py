"""What a report is asked for beyond its runs, and where its files go.

Every report (`rulebench report RUN...` and the per-task commands) takes these options; the
fields' docstrings are their --help, so the command line only spells the flags. Writing the
files is here too, so any front end that builds a report writes it the same way.
"""

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from rulebench.core.errors import ConfigError
from rulebench.core.pricing import PriceTable
from rulebench.report.kinds import (
    DEFAULT_EXTRACT,
    DEFAULT_FOLDER,
    HTML_ITEMS,
    ExtractMode,
    ReportKind,
)

if TYPE_CHECKING:
    # Not at import: the command line reads the options' help without loading the builders.
    from rulebench.engine.store.store_set import StoreSet
    from rulebench.report.build import BuiltReport

OLD_OUTPUT_FILE = ("-o FILE.md", "-o FOLDER (report.md is written inside)")
"""The old spelling of -o (a file) and the new one, for the one deprecation line."""


class ReportRequest(BaseModel):
    """The options every report takes: where it goes, in which forms, at which prices."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    output: Path | None = Field(
        default=None,
        description=f"Folder for report.md (inferential runs: and the plots; without -o they "
        f"go to {DEFAULT_FOLDER}/ unless --json; other runs' reports are only printed).",
    )
    store: list[Path] | None = None
    """Results store (SQLite file); repeat it to report runs of several stores, each read
    where it is; a folder stands for the *.sqlite files in it. Default: $RULEBENCH_STORE,
    else rulebench.sqlite in ./rulebench-results/."""
    as_json: bool = False
    """Print the tables' numbers as JSON to stdout instead of the Markdown (files are written
    only with --output or --html)."""
    html: Path | None = None
    """Also write the report as one self-contained HTML file (tables, charts, run
    configurations with secrets redacted, and each run's items)."""
    html_items: int = Field(default=HTML_ITEMS, ge=0)
    """Items per run in the HTML file's appendix (the first ones; it says how many more the
    run has)."""
    prices: PriceTable | None = None
    """The prices costs are shown at (--prices, --price-in/--price-out); None: no costs."""


def requested_kind(
    db: "StoreSet", family: ReportKind | None, run_ids: list[str], extract: ExtractMode | None
) -> ReportKind:
    """The report asked for (`family`), else the one the runs' task gets.

    Raises:
        ConfigError: runs that make no single report (`by_task.report_kind`), or an
            extraction mode asked of a report other than the inferential one.
    """
    from rulebench.report.by_task import report_kind

    kind = family or report_kind(db, run_ids)
    if extract is not None and kind != "inferential":
        raise ConfigError(f"--extract applies to inferential runs only; these are {kind} runs")
    return kind


def build_requested(
    db: "StoreSet",
    kind: ReportKind,
    run_ids: list[str],
    extract: ExtractMode | None,
    request: ReportRequest,
) -> "BuiltReport":
    """The report, written to its folder (`report_destination`) and to --html if asked."""
    from rulebench.report.by_task import ReportOptions, build_kind

    folder, _ = report_destination(kind, request)
    render = request.html is not None
    options = ReportOptions(folder, extract or DEFAULT_EXTRACT, render, request.prices)
    built = build_kind(db, kind, run_ids, options)
    if request.html is not None:
        write_html_report(db, built, request.html, request.html_items)
    return built


def report_destination(kind: ReportKind, request: ReportRequest) -> tuple[Path | None, Path | None]:
    """The folder the report goes to, and the file an old-style `-o FILE.md` names.

    Until this release `-o` named a file for scenarios and judge reports; such a path still
    gets that file (a front end says `OLD_OUTPUT_FILE`'s deprecation line).

    Raises:
        ConfigError: -o names a file that is not an old-style report file.
    """
    output = request.output
    if output is None:
        is_default = kind == "inferential" and not request.as_json
        return (DEFAULT_FOLDER if is_default else None), None
    if output.suffix == ".md" and kind != "inferential":
        return None, output
    if output.exists() and not output.is_dir():
        raise ConfigError(f"-o {output}: a file is there; -o names the report's folder")
    return output, None


def write_report_file(built: "BuiltReport", path: Path) -> None:
    """The Markdown to the file an old-style `-o FILE.md` names.

    Raises:
        ConfigError: the file cannot be written (naming it and why).
    """
    try:
        path.write_text(built.markdown, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"-o {path}: cannot write the file: {exc.strerror}") from None


def write_html_report(db: "StoreSet", built: "BuiltReport", path: Path, items_per_run: int) -> None:
    """Write the HTML page, its folder made.

    Raises:
        ConfigError: the page cannot be written (naming the file and why).
    """
    from rulebench.report.build import html_report

    page = html_report(db, built, items_per_run)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # backslashreplace: a lone surrogate in an old config must not lose the whole page.
        path.write_text(page, encoding="utf-8", errors="backslashreplace")
    except OSError as exc:
        raise ConfigError(f"--html {path}: cannot write the file: {exc.strerror}") from None


def written_lines(kind: ReportKind, built: "BuiltReport", request: ReportRequest) -> list[str]:
    """What a front end says once the report's files are written: where each one went."""
    lines = []
    if built.path is not None:
        beside = " (plots beside it)" if kind == "inferential" else ""
        lines.append(f"report written to {built.path}{beside}")
    if request.html is not None:
        lines.append(f"HTML report written to {request.html}")
    return lines
