"""A batch's comparison: one table of models x tasks, and each task's comparison report.

The table's columns are data (`COLUMNS`): the terminal and the Markdown file draw the same
ones, and a new column (tokens, cost) is one more entry.
"""

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from pydantic import JsonValue

from rulebench.core.errors import RulebenchError
from rulebench.core.pricing import PriceTable
from rulebench.core.stats import Proportion
from rulebench.engine.store.database import Store
from rulebench.engine.summary import priced
from rulebench.report.build import BuiltReport, inferential_report, scenarios_report
from rulebench.report.tables import format_usd
from rulebench.study.batch import BatchResult, BatchRow

COMPARED_TASKS = ("inferential", "scenarios")
"""Tasks with a comparison report (`rulebench report RUN1 RUN2 ...`)."""


class Column(NamedTuple):
    """One column of the batch table: its header and how a row's cell reads."""

    header: str
    cell: Callable[[BatchRow], str]
    is_number: bool = True
    """Right-aligned; dropped when no row has a value."""
    is_measure: bool = True
    """A number measured on the run; the terminal's table of each task draws these beside its
    first column (the model with the run), under the task as its title."""


def format_rate(rate: Proportion | None) -> str:
    """A rate in % with its 95% interval, as `runs show` prints it; "-" without one."""
    if rate is None or not rate.n:
        return "-"
    return f"{100 * rate.value:.1f} [{100 * rate.low:.1f}-{100 * rate.high:.1f}]"


def _accuracy(row: BatchRow) -> str:
    return format_rate(row.summary.accuracy if row.summary else None)


def _pass_rate(row: BatchRow) -> str:
    return format_rate(row.summary.pass_rate if row.summary else None)


def _items(row: BatchRow) -> str:
    return str(row.summary.items) if row.summary else "-"


def _errors(row: BatchRow) -> str:
    return str(row.summary.errors) if row.summary else "-"


def tokens_cell(row: BatchRow) -> str:
    """Tokens read / written by the model for the run (cached replies aside); "-" without."""
    if row.summary is None:
        return "-"
    return f"{row.summary.prompt_tokens:,}/{row.summary.completion_tokens:,}"


def cost_cell(row: BatchRow) -> str:
    """The run's cost at the user's prices; "-" when its model has none."""
    if row.summary is None or row.summary.cost_usd is None:
        return "-"
    return format_usd(row.summary.cost_usd)


def with_costs(result: BatchResult, prices: PriceTable | None) -> BatchResult:
    """The batch with each run's cost at `prices` (runs of unpriced models keep none)."""
    if prices is None:
        return result
    rows = [
        row.model_copy(update={"summary": priced([row.summary], prices.price_for(row.model))[0]})
        if row.summary is not None
        else row
        for row in result.rows
    ]
    return result.model_copy(update={"rows": rows})


def run_cell(row: BatchRow) -> str:
    """The run id, with the status when the run did not complete ("not started": no id)."""
    if row.run_id is None:
        return row.status
    return row.run_id if row.status == "completed" else f"{row.run_id} ({row.status})"


COLUMNS: tuple[Column, ...] = (
    Column("model", lambda row: row.model, is_number=False, is_measure=False),
    Column("task", lambda row: row.task, is_number=False, is_measure=False),
    Column("accuracy %", _accuracy),
    Column("pass %", _pass_rate),
    Column("n", _items),
    Column("errors", _errors),
    # Not measures: the terminal shows them under the run id, where 80 columns have room.
    Column("tokens in/out", tokens_cell, is_measure=False),
    Column("cost USD", cost_cell, is_measure=False),
    Column("run", run_cell, is_number=False, is_measure=False),
)
"""The batch table, left to right; a rate column shows only when some run has that rate."""


def table_columns(rows: Sequence[BatchRow]) -> list[Column]:
    """The columns worth showing: a number column where every cell is "-" is left out."""
    return [
        column
        for column in COLUMNS
        if not column.is_number or any(column.cell(row) != "-" for row in rows)
    ]


def markdown_table(rows: Sequence[BatchRow]) -> str:
    """The table as Markdown (cells with "|" escaped)."""
    columns = table_columns(rows)
    lines = [
        "| " + " | ".join(column.header for column in columns) + " |",
        "|" + "|".join("---:" if column.is_number else "---" for column in columns) + "|",
    ]
    for row in rows:
        cells = (column.cell(row).replace("|", "\\|") for column in columns)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


class Written(NamedTuple):
    """What `write_outputs` wrote, and the reports it could not build (with why)."""

    paths: list[Path]
    problems: list[str]


def write_outputs(result: BatchResult, store: Store, folder: Path, title: str) -> Written:
    """summary.md and batch.json, then a comparison report per task run on two models or more.

    A report that cannot be built (a run with no results) is a problem to show, not a failure
    of the batch: the table is still written.
    """
    folder.mkdir(parents=True, exist_ok=True)
    summary, batch = folder / "summary.md", folder / "batch.json"
    summary.write_text(_summary_markdown(result, title), encoding="utf-8")
    batch.write_text(json.dumps(batch_json(result), indent=2) + "\n", encoding="utf-8")
    written = Written([summary, batch], [])
    for task, (kind, run_ids) in compared_runs(result, store).items():
        target = folder / folder_name(task)
        try:
            built = _comparison(store, kind, run_ids, target)
        except RulebenchError as exc:
            written.problems.append(f"{task}: no comparison report: {exc}")
            continue
        written.paths.extend(_save(built, target))
    return written


def batch_json(result: BatchResult) -> dict[str, JsonValue]:
    """The batch as JSON: its id and one entry per run (`--json` prints it)."""
    rows: list[JsonValue] = [row.model_dump(mode="json") for row in result.rows]
    shard = None if result.shard is None else str(result.shard)
    return {"batch": result.batch_id, "shard": shard, "runs": rows}


def compared_runs(result: BatchResult, store: Store) -> dict[str, tuple[str, list[str]]]:
    """Task label -> (task, run ids) for each task with a comparison report and 2+ runs."""
    found: dict[str, tuple[str, list[str]]] = {}
    for row in result.rows:
        if row.run_id is None or not row.summary or not row.summary.items:
            continue
        kind = store.get_run(row.run_id).task
        if kind in COMPARED_TASKS:
            found.setdefault(row.task, (kind, []))[1].append(row.run_id)
    return {task: runs for task, runs in found.items() if len(runs[1]) >= 2}


def _comparison(store: Store, kind: str, run_ids: list[str], folder: Path) -> BuiltReport:
    if kind == "inferential":
        return inferential_report(store, run_ids, "robust", folder)
    return scenarios_report(store, run_ids)


def _save(built: BuiltReport, folder: Path) -> list[Path]:
    """report.md (an inferential report wrote it, with its plots) and the numbers as JSON."""
    folder.mkdir(parents=True, exist_ok=True)
    markdown = built.path or folder / "report.md"
    if built.path is None:
        markdown.write_text(built.markdown, encoding="utf-8")
    numbers = folder / "numbers.json"
    numbers.write_text(json.dumps(built.numbers, indent=2, allow_nan=False) + "\n", "utf-8")
    return [markdown, numbers]


def folder_name(task: str) -> str:
    """A task label as a folder name: letters, digits, '-', '_' and '.' kept, others '-'."""
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in task).strip(".") or "task"


def _summary_markdown(result: BatchResult, title: str) -> str:
    problems = [
        f"- {row.model} on {row.task}: {row.status}"
        + (f" (run {row.run_id})" if row.run_id else "")
        + (f": {row.problem}" if row.problem else "")
        for row in result.incomplete()
    ]
    notes = "\nDid not complete:\n" + "\n".join(problems) + "\n" if problems else ""
    return (
        f"# {title}\n\n{shard_note(result)}Batch {result.batch_id}. Rates in % with their 95% "
        "interval (Wilson); n: items with a stored result, errors included.\n\n"
        f"{markdown_table(result.rows)}{notes}"
    )


def shard_note(result: BatchResult) -> str:
    """For a shard's batch, a paragraph saying its rates are of the shard, not of the whole."""
    if result.shard is None:
        return ""
    return (
        f"**Shard {result.shard} only**: each run holds this shard's items, not the whole "
        "run's; these figures are not the experiment's. Join the shards' stores with "
        "`rulebench runs merge STORE... --into STORE`, then run the batch without `--shard` "
        "on the merged store for the whole table.\n\n"
    )
