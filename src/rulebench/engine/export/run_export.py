"""Export a run: JSONL (lossless, replayable), CSV (flat) or an inspect log (`inspect view`)."""

import csv
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO

from pydantic import JsonValue

from rulebench.core.errors import StoreError
from rulebench.core.items import ItemResult
from rulebench.core.text import escape_controls
from rulebench.engine.store.records import RESULT_COLUMNS, RunRecord, result_to_row

if TYPE_CHECKING:
    from rulebench.engine.store.database import Store

ExportFormat = Literal["jsonl", "csv", "inspect"]
ResultsFormat = Literal["jsonl", "csv"]
"""The formats that hold results alone; an inspect log also needs the run's record."""
FLAT_COLUMNS = tuple(c for c in RESULT_COLUMNS if c != "finished_at")
"""The columns of a flat row (CSV, `rulebench.results`): every stored one but the commit time."""
_NESTED = frozenset({"messages", "details", "metadata", "warnings"})
"""Columns holding JSON: text in CSV, Python values in `flat_row`."""
# A text cell starting with one of these is a formula to a spreadsheet (OWASP, CSV injection).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def write_jsonl(run_id: str, results: Iterable[ItemResult], out: TextIO) -> int:
    r"""One JSON object per result: the run id plus the full result. Returns the count.

    Lossless, yet `cat` shows no control: JSON escapes C0 controls itself, and DEL, C1 and
    bidi controls are written as `\uXXXX` too, which decodes to the same text.
    """
    count = 0
    for result in results:
        row = {"run_id": run_id, **result.model_dump(mode="json")}
        out.write(escape_controls(json.dumps(row, ensure_ascii=False), is_json=True) + "\n")
        count += 1
    return count


def guard_formula(value: object) -> object:
    """A text cell a spreadsheet shows as text: one that would start a formula gets a `'`.

    Replies and error messages are outside text, and `=HYPERLINK(...)` in one would run when
    the CSV is opened. Numbers stay numbers; JSONL is the lossless export.
    """
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def flat_row(run_id: str, result: ItemResult) -> dict[str, JsonValue]:
    """One result as a flat row by column name, nested columns as Python values.

    The transcript holds the prompt turns; the model's last reply is the `reply` column.
    """
    stored = dict(zip(RESULT_COLUMNS, result_to_row(run_id, result), strict=True))
    return {
        column: json.loads(str(stored[column])) if column in _NESTED else stored[column]  # type: ignore[misc]
        for column in FLAT_COLUMNS
    }


def csv_cell(column: str, value: object) -> object:
    r"""A stored value as a CSV cell: controls and bidi overrides escaped, formulas guarded.

    `cat results.csv` must not run the ESC sequences a reply or error held; a JSON cell keeps
    its escapes JSON (`\u007f`), so it still parses to the stored value.
    """
    if isinstance(value, str):
        value = escape_controls(value, is_json=column in _NESTED)
    return guard_formula(value)


def write_csv(run_id: str, results: Iterable[ItemResult], out: TextIO) -> int:
    r"""One flat row per result; messages, details, metadata, warnings as JSON text.

    Control and bidi-control characters (not newline and tab) are written as escapes, e.g.
    ESC as `\x1b`; text cells that a spreadsheet would read as a formula are prefixed with
    `'`. JSONL is the lossless export. Returns the count.
    """
    writer = csv.writer(out)
    writer.writerow(FLAT_COLUMNS)
    count = 0
    for result in results:
        stored = dict(zip(RESULT_COLUMNS, result_to_row(run_id, result), strict=True))
        writer.writerow([csv_cell(column, stored[column]) for column in FLAT_COLUMNS])
        count += 1
    return count


def export_results(
    run_id: str, results: Iterable[ItemResult], path: Path, fmt: ResultsFormat
) -> int:
    """Export a run's results to `path` as JSONL or CSV; returns how many were written."""
    write = write_jsonl if fmt == "jsonl" else write_csv
    return write_atomically(path, lambda out: write(run_id, results, out))


def export_run(
    store: "Store", run: RunRecord, path: Path, fmt: ExportFormat, group_by: str | None = None
) -> int:
    """Export a stored run to `path`; returns how many results were written.

    Args:
        store: the store holding the run.
        run: the run.
        path: the file to write.
        fmt: the format.
        group_by: the metadata field the run's summary groups by (its task's), for the
            per-group metrics of an inspect log.
    """
    if fmt != "inspect":
        return export_results(run.id, store.iter_results(run.id), path, fmt)
    from rulebench.engine.export.inspect_eval import write_eval_log
    from rulebench.engine.export.inspect_log import RunLog, write_inspect_log
    from rulebench.engine.summary import summarize

    rows = summarize(store.tally_results(run.id, group_by), group_by is not None)
    log = RunLog(run, store.effective_status(run), rows, group_by)
    if path.suffix.lower() == ".json":
        return write_atomically(
            path, lambda out: write_inspect_log(log, store.iter_results(run.id), out)
        )
    return write_file_atomically(
        path, lambda temporary: write_eval_log(log, store.iter_results(run.id), temporary)
    )


def write_atomically(path: Path, write: Callable[[TextIO], int]) -> int:
    """Run `write` on a text file beside `path`, then rename it into place; returns its count.

    A crash never leaves a half-written file where a complete one is expected.
    """

    def write_text(temporary: Path) -> int:
        with temporary.open("w", encoding="utf-8", newline="") as out:
            return write(out)

    return write_file_atomically(path, write_text)


def write_file_atomically(path: Path, write: Callable[[Path], int]) -> int:
    """Run `write` on a path beside `path`, then rename it into place; returns its count."""
    temporary = path.with_name(f".{path.name}.partial")
    try:
        count = write(temporary)
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}") from None
    return count
