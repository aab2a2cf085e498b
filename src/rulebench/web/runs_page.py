"""The explorer's home: the store's runs, most recent first, filtered and paged."""

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from rulebench.engine.browse import RunFilter
from rulebench.engine.records import RunRecord
from rulebench.engine.store import Store
from rulebench.web.paging import Paged, Pager
from rulebench.web.templating import render_page
from rulebench.web.views import open_store, run_header

router = APIRouter()

STATUSES = ("running", "completed", "interrupted", "failed", "killed")
_LIVE_SCAN = 5000
"""Most stored-"running" runs read to split running from killed (their process is gone)."""


class RunsQuery(Paged):
    """The runs list's query string."""

    task: str | None = None
    """Benchmark family (the run's task), exactly."""
    model: str | None = None
    """Text the model spec contains."""
    status: str | None = None
    """Effective status: running, completed, interrupted, failed or killed."""


@router.get("/", response_class=HTMLResponse)
def runs_list(request: Request, query: Annotated[RunsQuery, Query()]) -> HTMLResponse:
    """Runs with their status and result counts; filters by task, model and status."""
    params = {"task": query.task, "model": query.model, "status": query.status}
    where = RunFilter(task=query.task or None, model=query.model or None)
    with open_store(request) as db:
        runs, pager = _find(db, where, query)
        rows = [run_header(db, run) | {"counts": db.count_results(run.id)} for run in runs]
        browser = db.browser()
        choices = {"task": browser.run_values("task"), "status": list(STATUSES)}
        recent = [run_header(db, run) for run in db.list_runs(200)]
    return render_page(
        "runs.html",
        {
            "title": "Runs",
            "store": request.app.state.store_label,
            "runs": rows,
            "filters": params,
            "choices": choices,
            "pager": pager,
            "links": pager.links("/", params),
            "recent": recent,
        },
    )


def _find(db: Store, where: RunFilter, query: RunsQuery) -> tuple[list[RunRecord], Pager]:
    """A page of matching runs.

    "running" and "killed" are both stored as running (whether the process lives decides),
    so those two are told apart here, among the few runs stored as running.
    """
    browser = db.browser()
    status, size = query.status, query.size
    if status in ("running", "killed"):
        stored = browser.runs(where.model_copy(update={"status": "running"}), 0, _LIVE_SCAN)
        matching = [run for run in stored if db.effective_status(run) == status]
        pager = Pager(query.page, size, len(matching))
        return matching[pager.offset : pager.offset + size], pager
    where = where.model_copy(update={"status": status or None})
    pager = Pager(query.page, size, browser.count_runs(where))
    return browser.runs(where, pager.offset, size), pager
