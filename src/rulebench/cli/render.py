"""Printing a finished run: its summary table (or JSON), errors and notes."""

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rulebench.cli.console import err, out
from rulebench.cli.pricing import env_price_table, print_usage
from rulebench.engine.run_errors import count_errors
from rulebench.engine.runner import RunReport
from rulebench.engine.store.database import Store
from rulebench.report.run_end import pace_line, run_end_json, stopped_reason, thinking_cut_line
from rulebench.report.run_facts import run_summary
from rulebench.report.tables import summary_table
from rulebench.report.untrusted import escape_markup, safe_text

if TYPE_CHECKING:
    from rulebench.train.comparison import ComparisonRow


def print_run_summary(store: Store, report: RunReport, group_by: str | None, as_json: bool) -> None:
    """The whole run's results (resumed parts included), grouped as the task prefers.

    Costs are shown when $RULEBENCH_PRICES names a price table with the run's model.
    """
    run = report.run
    table = env_price_table()
    price = table.price_for(run.model) if table else None
    rows = run_summary(store, run.id, group_by, price)
    if as_json:
        out.print_json(json.dumps(run_end_json(report, rows, price, table)), ensure_ascii=True)
        return
    out.print(summary_table(rows, f"Run {run.id}: {run.task} on {run.model}", group_by or "group"))
    print_usage(rows[-1], run.model, price, table)
    err.print(escape_markup(pace_line(report, store.path)))
    reason = stopped_reason(report)
    if reason is not None:
        err.print(f"[red]run {run.status}:[/red] ", end="")
        err.print(safe_text(reason), highlight=False)
    for key in ("system_role_fallback", "concurrency"):
        note = run.notes.get(key)
        if note:
            err.print(f"[yellow]note:[/yellow] {escape_markup(str(note))}")
    print_backend_notes(run.notes)
    if rows[-1].reasoning_unfinished:
        err.print("[yellow]warning:[/yellow] ", end="")
        err.print(thinking_cut_line(rows[-1].reasoning_unfinished, run.config), highlight=False)
    print_errors(store, run.id)


def print_backend_notes(notes: Mapping[str, object]) -> None:
    """What the backend sent differently from the run's settings, one note line each."""
    backend_notes = notes.get("backend_notes")
    for note in backend_notes if isinstance(backend_notes, list) else ():
        err.print("[yellow]note:[/yellow] ", end="")
        err.print(safe_text(str(note)), highlight=False)


def print_errors(store: Store, run_id: str) -> None:
    """The most common error messages of a run, so failures are visible, not just counted.

    Resuming is suggested only for errors it may fix: a settings or data error (a model that
    cannot score choices, a malformed record) fails the same way on every retry.
    """
    errors = count_errors(store, run_id)
    if not errors.total:
        return
    err.print(f"[red]{errors.total} items ended in an error[/red] ({errors.advice}):")
    for line in errors.shown_messages():
        err.print(safe_text(line), highlight=False)


def print_comparison(rows: Sequence["ComparisonRow"], title: str, sides: tuple[str, str]) -> None:
    """Paired rows as a table: both sides in %, the difference with its 95% CI, McNemar p."""
    from rich.table import Table

    from rulebench.train.comparison import format_accuracy, format_delta, format_p

    table = Table(title=title)
    for column in ("evaluation", "n", *sides, "difference [95% CI]", "McNemar p"):
        table.add_column(column, justify="left" if column == "evaluation" else "right")
    for row in rows:
        table.add_row(
            safe_text(row.evaluation),
            str(row.pairs),
            format_accuracy(row, row.base),
            format_accuracy(row, row.tuned),
            format_delta(row.delta),
            format_p(row.mcnemar_p),
        )
    out.print(table)
