"""Printing a finished run: its summary table (or JSON), errors and notes."""

import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from rulebench.cli.console import err, out
from rulebench.cli.pricing import env_price_table, price_json, print_usage
from rulebench.engine.runner import RunReport
from rulebench.engine.store.database import Store
from rulebench.engine.summary import priced, summarize
from rulebench.report.tables import replies, summary_table
from rulebench.report.untrusted import escape_markup, safe_text

if TYPE_CHECKING:
    from rulebench.train.comparison import ComparisonRow

MAX_ERRORS_SHOWN = 3
PERMANENT_ERRORS = ("ConfigError: ", "DataError: ")
"""How the runner labels an item's settings or data error: a retry fails the same way."""
# The runner's reason for a run failed by item errors; print_errors says it with better advice.
_ERROR_TALLY = re.compile(r"\d+ of \d+ items ended in an error\b")


class ErrorCounts(NamedTuple):
    """A run's error results, and how many of them a resume cannot fix."""

    total: int
    permanent: int
    common: list[tuple[str, int]]
    """Messages with their counts, most frequent first."""

    @property
    def is_retryable(self) -> bool:
        """Whether resuming would retry at least one error that may not recur."""
        return self.total > self.permanent


def count_errors(store: Store, run_id: str) -> ErrorCounts:
    """A run's errors, split into those a resume may fix and those of settings or data."""
    total = store.count_results(run_id)["error"]
    # Asking for `total` messages gets all of them: there are never more messages than errors.
    common = store.common_errors(run_id, total) if total else []
    permanent = sum(count for message, count in common if message.startswith(PERMANENT_ERRORS))
    return ErrorCounts(total, permanent, common)


def is_error_tally(reason: str) -> bool:
    """Whether a run failed only by item errors, which `print_errors` lists with advice."""
    return _ERROR_TALLY.match(reason) is not None


def is_resumable(store: Store, run_id: str, status: str, reason: str) -> bool:
    """Whether `--resume` can change anything: items left to run, or errors worth a retry."""
    if status in ("killed", "interrupted"):
        return True
    if status != "failed":
        return False
    return not is_error_tally(reason) or count_errors(store, run_id).is_retryable


def print_run_summary(store: Store, report: RunReport, group_by: str | None, as_json: bool) -> None:
    """The whole run's results (resumed parts included), grouped as the task prefers.

    Costs are shown when $RULEBENCH_PRICES names a price table with the run's model.
    """
    run = report.run
    table = env_price_table()
    price = table.price_for(run.model) if table else None
    rows = priced(summarize(store.tally_results(run.id, group_by), group_by is not None), price)
    if as_json:
        payload = {
            "run": run.model_dump(mode="json"),
            "summary": [row.model_dump(mode="json") for row in rows],
            "wall_s": report.wall_s,
            "prices": None if price is None else price_json(price, table),
        }
        out.print_json(json.dumps(payload), ensure_ascii=True)
        return
    out.print(summary_table(rows, f"Run {run.id}: {run.task} on {run.model}", group_by or "group"))
    print_usage(rows[-1], run.model, price, table)
    rate = report.completed_now / report.wall_s if report.wall_s > 0 else 0.0
    err.print(
        f"{report.completed_now} items in {report.wall_s:.1f}s ({rate:,.1f} items/s)"
        + (f", {report.skipped} finished earlier" if report.skipped else "")
        + (f", {replies(report.cache_hits_now)} from the cache" if report.cache_hits_now else "")
        + f"; status: {run.status}; store: {escape_markup(store.path)}"
    )
    reason = str(run.notes.get("reason") or "")
    if run.status != "completed" and reason and not is_error_tally(reason):
        err.print(f"[red]run {run.status}:[/red] ", end="")
        err.print(safe_text(reason), highlight=False)
    fallback = run.notes.get("system_role_fallback")
    if fallback:
        err.print(f"[yellow]note:[/yellow] {escape_markup(fallback)}")
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


def thinking_cut_line(count: int, config: Mapping[str, object]) -> str:
    """The run-end line for replies the reply limit cut while the model was still thinking."""
    generate = config.get("generate")
    limit = generate.get("max_tokens") if isinstance(generate, dict) else None
    now = f" (now {limit})" if isinstance(limit, int) else ""
    have = "has" if count == 1 else "have"
    return (
        f"{replies(count)} ran out of tokens while thinking and {have} no answer: "
        f"raise --max-tokens{now}"
    )


def print_errors(store: Store, run_id: str) -> None:
    """The most common error messages of a run, so failures are visible, not just counted.

    Resuming is suggested only for errors it may fix: a settings or data error (a model that
    cannot score choices, a malformed record) fails the same way on every retry.
    """
    errors = count_errors(store, run_id)
    if not errors.total:
        return
    if not errors.permanent:
        advice = "resume the run to retry them"
    elif not errors.is_retryable:
        advice = "settings or data errors: resuming fails the same way until they are fixed"
    else:
        advice = (
            f"resume the run to retry them; the {errors.permanent} settings or data errors "
            "fail again until fixed"
        )
    err.print(f"[red]{errors.total} items ended in an error[/red] ({advice}):")
    for message, count in errors.common[:MAX_ERRORS_SHOWN]:
        err.print(safe_text(f"  {count} x {message}"), highlight=False)


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
