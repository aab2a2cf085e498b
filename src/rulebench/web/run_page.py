"""A run's page: who ran what, its summary, and its items paged and filtered.

A running run's page also follows it live: `static/live.js` polls the progress endpoint
(`live.py`) and updates the counts and the latest items without a reload.
"""

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from rulebench.engine.browse import VERDICTS, ResultFilter
from rulebench.engine.catalog import TASKS
from rulebench.engine.records import RunRecord
from rulebench.engine.store import Store
from rulebench.report.redaction import redact_text
from rulebench.web.charts_page import CHARTED_TASKS
from rulebench.web.paging import Paged, Pager
from rulebench.web.run_memo import remembered, run_state
from rulebench.web.run_tallies import run_sums
from rulebench.web.templating import render_page, run_url
from rulebench.web.views import (
    VERDICT_LABELS,
    open_run,
    result_row,
    run_config,
    run_header,
    store_label,
    summary_rows,
)

router = APIRouter()

FILTER_FIELDS = ("task", "setting", "scenario", "behavior", "group")
"""Metadata fields the items can be filtered by, where a run's items have them."""
LATEST_SHOWN = 10


class ItemsQuery(Paged):
    """A run page's query string: which items, which page ("" means any, as forms send it)."""

    verdict: Literal["", "passed", "failed", "excluded", "error"] | None = None
    task: str | None = None
    """The item's task (an inferential run's kinship, clutrr...), not the run's."""
    setting: str | None = None
    scenario: str | None = None
    behavior: str | None = None
    group: str | None = None
    error: str | None = None
    """Text the error contains."""
    item: str | None = None
    """Text the item id contains."""

    def metadata(self) -> dict[str, str]:
        """The metadata fields asked for, with their values."""
        chosen = {field: getattr(self, field) for field in FILTER_FIELDS}
        return {field: value for field, value in chosen.items() if value}

    def to_filter(self) -> ResultFilter:
        """The store's filter for these parameters."""
        return ResultFilter(
            verdict=self.verdict or None,
            metadata=self.metadata(),
            error=self.error or None,
            item_id=self.item or None,
        )

    def params(self) -> dict[str, object]:
        """The filters as query parameters (for links to other pages of the same list)."""
        return self.model_dump(exclude={"page", "size"})


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
    items = browser.results(run.id, where, pager.offset, query.size)
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
        "verdicts": [(value, VERDICT_LABELS[value]) for value in VERDICTS],
        "items": [result_row(run.id, result, group_by) for result in items],
        "pager": pager,
        "links": pager.links(run_url(run.id), query.params()),
        "live": live,
        "progress_url": f"/api{run_url(run.id)}/progress",
        "latest": [result_row(run.id, result, group_by) for result in latest],
        "charts_url": f"{run_url(run.id)}/charts" if run.task in CHARTED_TASKS else None,
    }
