"""A run's page: who ran what, its summary, and its items paged, filtered and sorted.

A running run's page also follows it live: `static/live.js` polls the progress endpoint
(`live.py`) and updates the counts and the latest items without a reload.
"""

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from rulebench.core.items import ItemResult
from rulebench.engine.catalog import TASKS
from rulebench.engine.store.browse import ResultFilter
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord
from rulebench.engine.verdicts import VERDICTS
from rulebench.report.redaction import redact_text
from rulebench.web.explorer.charts_page import CHARTED_TASKS
from rulebench.web.explorer.items_query import FILTER_FIELDS, ItemsQuery, sort_headers
from rulebench.web.explorer.run_memo import remembered, run_state
from rulebench.web.explorer.run_tallies import run_sums
from rulebench.web.explorer.views import (
    VERDICT_LABELS,
    open_run,
    result_row,
    run_config,
    run_header,
    store_label,
    summary_rows,
)
from rulebench.web.paging import Pager
from rulebench.web.templating import query_url, render_page, run_url

router = APIRouter()

LATEST_SHOWN = 10


@router.get("/runs/{run_id}", response_class=HTMLResponse)
def run_page(request: Request, run_id: str, query: Annotated[ItemsQuery, Query()]) -> HTMLResponse:
    """The run's summary and one page of its items."""
    with open_run(request, run_id) as (db, run):
        context = _run_context(db, run, query)
        context["run_store"] = store_label(request, db)
    context["store"] = request.app.state.store_label
    context["shard"] = shard_note(run)
    return render_page("run.html", context)


def shard_note(run: RunRecord) -> str | None:
    """What a shard's page must say: it holds part of a run, and how to see the whole one.

    The explorer shows each shard as a run of its own rather than joining them on the fly:
    the joined run is what `rulebench runs merge` makes, with its id, status and checks.
    """
    shard = run.config.get("shard")
    if not isinstance(shard, dict):
        return None
    index, count = shard.get("index"), shard.get("count")
    return (
        f"This run is shard {index}/{count} of a sharded run: it holds only the items of its "
        "shard. Join the shards' stores with `rulebench runs merge STORE... --into FILE` and "
        "serve or report FILE to see the whole run."
    )


def _run_context(db: Store, run: RunRecord, query: ItemsQuery) -> dict[str, object]:
    header = run_header(db, run)
    entry = TASKS.get(run.task)
    group_by = entry.group_by if entry else None
    browser = db.browser()
    where = query.to_filter()
    pager = Pager(query.page, query.size, browser.count(run.id, where))
    items = browser.results(run.id, where, pager.offset, query.size, query.to_order(group_by))
    live = header["status"] == "running"
    # Only a live run's rows are the newest, which `latest` reads cheaply.
    latest = browser.latest(run.id, LATEST_SHOWN) if live else []
    # The run's aggregates (each a pass over its results) are the same on every page of it.
    sums = run_sums(db, run.id, group_by)
    state = run_state(db, run)

    def summary() -> list[dict[str, str]]:
        return summary_rows(db, run.id, group_by, sums)

    def errors() -> list[tuple[str, int]]:
        return [(redact_text(text), n) for text, n in db.common_errors(run.id)]

    return {
        "title": f"Run {run.id}",
        "run": header | run_config(run),
        "summary": remembered(state, f"summary:{group_by}", summary),
        "group_by": group_by,
        "counts": sums.verdicts._asdict(),
        "errors": remembered(state, "errors", errors),
        "fields": remembered(
            state, "fields", lambda: browser.metadata_values(run.id, FILTER_FIELDS)
        ),
        "filters": query.params(),
        "filtered": where != ResultFilter(),
        # Clearing the filters keeps the sort (as changing them does: the form carries it).
        "clear_url": query_url(run_url(run.id), _sort_params(query)) + "#items",
        "verdicts": [(value, VERDICT_LABELS[value]) for value in VERDICTS],
        "items": [_listed_row(run.id, result, group_by, query) for result in items],
        "sorts": sort_headers(run_url(run.id), query),
        "pager": pager,
        "links": pager.links(run_url(run.id), query.params()),
        "live": live,
        "progress_url": f"/api{run_url(run.id)}/progress",
        "latest": [result_row(run.id, result, group_by) for result in latest],
        "charts_url": f"{run_url(run.id)}/charts" if run.task in CHARTED_TASKS else None,
    }


def _listed_row(
    run_id: str, result: ItemResult, group_by: str | None, query: ItemsQuery
) -> dict[str, object]:
    """A row of the items table, its link carrying the list (so the item page walks it)."""
    row = result_row(run_id, result, group_by)
    score = result.outcome.score if result.outcome else None
    return row | {
        "url": query_url(str(row["url"]), query.list_params()),
        "score": "-" if score is None else f"{score:g}",
    }


def _sort_params(query: ItemsQuery) -> dict[str, object]:
    params = query.params()
    return {"sort": params["sort"], "order": params["order"]}
