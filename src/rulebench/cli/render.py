"""Printing a finished run: its summary table (or JSON), errors and notes."""

import json

from rulebench.cli.console import err, out
from rulebench.engine.runner import RunReport
from rulebench.engine.store import Store
from rulebench.engine.summary import summarize
from rulebench.report.tables import summary_table
from rulebench.report.untrusted import escape_markup, safe_text

MAX_ERRORS_SHOWN = 3


def print_run_summary(store: Store, report: RunReport, group_by: str | None, as_json: bool) -> None:
    """The whole run's results (resumed parts included), grouped as the task prefers."""
    run = report.run
    rows = summarize(store.tally_results(run.id, group_by), group_by is not None)
    if as_json:
        payload = {
            "run": run.model_dump(mode="json"),
            "summary": [row.model_dump(mode="json") for row in rows],
            "wall_s": report.wall_s,
        }
        out.print_json(json.dumps(payload), ensure_ascii=True)
        return
    out.print(summary_table(rows, f"Run {run.id}: {run.task} on {run.model}", group_by or "group"))
    rate = report.completed_now / report.wall_s if report.wall_s > 0 else 0.0
    err.print(
        f"{report.completed_now} items in {report.wall_s:.1f}s ({rate:,.1f} items/s)"
        + (f", {report.skipped} finished earlier" if report.skipped else "")
        + (f", {report.cache_hits_now} replies from the cache" if report.cache_hits_now else "")
        + f"; status: {run.status}; store: {escape_markup(store.path)}"
    )
    reason = run.notes.get("reason")
    if run.status != "completed" and reason:
        err.print(f"[red]run {run.status}:[/red] ", end="")
        err.print(safe_text(reason), highlight=False)
    fallback = run.notes.get("system_role_fallback")
    if fallback:
        err.print(f"[yellow]note:[/yellow] {escape_markup(fallback)}")
    print_errors(store, run.id)


def print_errors(store: Store, run_id: str) -> None:
    """The most common error messages of a run, so failures are visible, not just counted."""
    total = store.count_results(run_id)["error"]
    if not total:
        return
    err.print(f"[red]{total} items ended in an error[/red] (resume the run to retry them):")
    for message, count in store.common_errors(run_id, MAX_ERRORS_SHOWN):
        err.print(safe_text(f"  {count} x {message}"), highlight=False)
