"""What the pages show of runs and results: plain text and numbers taken from the store.

The stores are opened read-only for every request (a connection per request: SQLite
connections stay in the thread that made them, and opening one takes about a millisecond).
Several stores are read as one (`engine.store.store_set`): a run's pages read the store holding it.
What a run's config, notes or errors hold is redacted first (`report.redaction`): keys,
tokens, passwords and URL credentials never reach a page.
"""

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import JsonValue

from rulebench.core.errors import StoreError
from rulebench.core.items import ItemResult
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord
from rulebench.engine.store.store_set import StoreSet
from rulebench.engine.summary import summarize
from rulebench.engine.verdicts import Verdict, verdict_of
from rulebench.report.redaction import redact_config, redact_text
from rulebench.web.explorer.run_tallies import RunSums, run_tallies
from rulebench.web.templating import excerpt, item_url, pretty_json, run_url, thousands

if TYPE_CHECKING:
    from starlette.requests import Request

VERDICT_LABELS: dict[Verdict, str] = {
    "passed": "passed",
    "failed": "failed",
    "excluded": "not counted",
    "error": "error",
}


class NotFound(Exception):
    """What a URL names is not in the store (a 404 page says what)."""


def open_stores(request: "Request") -> StoreSet:
    """The app's stores, read-only, for one request (close them: use as a context manager)."""
    return StoreSet.open(request.app.state.store_paths)


@contextlib.contextmanager
def open_run(request: "Request", run_id: str) -> Iterator[tuple[Store, RunRecord]]:
    """The store holding a run (by id or unique prefix) and the run, for one request.

    Raises:
        NotFound: no store holds it, or the id is ambiguous (the stores' reason).
    """
    with open_stores(request) as stores:
        yield locate_run(stores, run_id)


def locate_run(stores: StoreSet, run_id: str) -> tuple[Store, RunRecord]:
    """`StoreSet.locate`, with NotFound (the stores' reason) for a run it cannot find."""
    try:
        return stores.locate(run_id)
    except StoreError as exc:
        raise NotFound(str(exc)) from None


def store_label(request: "Request", store: Store) -> str:
    """How pages name the store a run is read from ("" when the app reads one store)."""
    labels: dict[Path, str] = request.app.state.store_labels
    return labels.get(store.path, str(store.path)) if len(labels) > 1 else ""


def hide_store_path(request: "Request", message: str) -> str:
    """`message` with each store's path as the page names the store (by name, when remote).

    Store errors name the file as they opened it, absolute or resolved; a server others
    reach must not show where its files live.
    """
    if request.app.state.show_paths:
        return message
    labels: dict[Path, str] = request.app.state.store_labels
    named = {
        shown: label
        for path, label in labels.items()
        for shown in (str(path.resolve()), str(path.absolute()), str(path))
    }
    for shown in sorted(named, key=len, reverse=True):
        message = message.replace(shown, named[shown])
    return message


def run_header(db: Store, run: RunRecord) -> dict[str, object]:
    """Who and what a run is, for the top of its pages and for lists of runs."""
    return {
        "id": run.id,
        "url": run_url(run.id),
        "task": run.task,
        "model": redact_text(run.model),
        "status": db.effective_status(run),
        "started_at": run.started_at,
        "ended_at": run.ended_at or "-",
        "version": run.version,
    }


def run_config(run: RunRecord) -> dict[str, str]:
    """The run's configuration and notes as redacted, indented JSON ("" when empty)."""
    return {
        "config": pretty_json(redact_config(run.config)),
        "notes": pretty_json(redact_config(run.notes)) if run.notes else "",
    }


def error_text(result: ItemResult) -> str | None:
    """The result's error with any credential in it hidden (an error may quote a URL)."""
    return None if result.error is None else redact_text(result.error)


def result_row(run_id: str, result: ItemResult, group_by: str | None) -> dict[str, object]:
    """One result as a line of a table: id, verdict, answer, the start of the reply, cost.

    Tokens are those the model read and wrote for the item this time ("in/out", as the run's
    totals count them: replies served from the cache are on the item page); every value is
    text, so the live progress JSON carries them too.
    """
    verdict = verdict_of(result)
    group = result.metadata.get(group_by) if group_by else None
    return {
        "id": result.item_id,
        "url": item_url(run_id, result.item_id),
        "verdict": verdict,
        "label": VERDICT_LABELS[verdict],
        "group": "" if group is None else str(group),
        "answer": excerpt(result.outcome.answer if result.outcome else None),
        "reply": excerpt(result.reply),
        "error": excerpt(error_text(result)),
        "tokens": token_text(result),
        "latency": f"{result.latency_s:.2f}",
    }


def token_text(result: ItemResult) -> str:
    """The item's prompt and completion tokens as "in/out"."""
    return f"{result.usage.prompt_tokens}/{result.usage.completion_tokens}"


def summary_rows(
    db: Store, run_id: str, group_by: str | None, sums: RunSums | None = None
) -> list[dict[str, str]]:
    """The run's summary table: per group (if the task groups), then all.

    Text only, so the run page and the live progress JSON show the same cells. The sums are
    kept between requests and read on from where they stand (`run_tallies`; `sums` are the
    run's `run_sums` for `group_by`, where the caller has them).
    """
    rows = summarize(run_tallies(db, run_id, group_by, sums), group_by is not None)
    return [
        {
            "group": row.group,
            "count": thousands(row.items),  # not "items": Jinja would find dict.items first
            "errors": thousands(row.errors),
            "accuracy": row.accuracy.format() if row.accuracy else "-",
            "pass_rate": row.pass_rate.format() if row.pass_rate else "-",
            "excluded": thousands(row.excluded),
        }
        for row in rows
    ]


def json_or_empty(value: dict[str, JsonValue]) -> str:
    """Indented JSON, or "" for an empty mapping."""
    return pretty_json(value) if value else ""
