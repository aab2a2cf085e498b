"""A run's progress as JSON, polled by a running run's page (`static/live.js`) once a second.

Counts and the summary table are aggregates over the run's rows and the latest items a short
read from the newest row back, so polling costs milliseconds while the run writes (WAL:
readers never wait for the writer). The status is the effective one: a run whose process is
gone reads "killed", so a page following it shows the end of a killed run too. The items done
of the run's total and the ETA at the last minute's pace come with them (`live_eta`).
"""

from typing import Annotated

from fastapi import APIRouter, Query, Request
from pydantic import JsonValue

from rulebench.engine.catalog import TASKS
from rulebench.web.explorer.live_eta import run_eta
from rulebench.web.explorer.run_tallies import run_sums
from rulebench.web.explorer.views import open_run, result_row, summary_rows

router = APIRouter()

MAX_LATEST = 100


@router.get("/api/runs/{run_id}/progress")
def progress(
    request: Request,
    run_id: str,
    latest: Annotated[int, Query(ge=0, le=MAX_LATEST, description="Latest items listed.")] = 10,
) -> dict[str, JsonValue]:
    """Status, end, counts by verdict, items done of the total with an ETA, summary and latest."""
    with open_run(request, run_id) as (db, run):
        entry = TASKS.get(run.task)
        group_by = entry.group_by if entry else None
        browser = db.browser()
        sums = run_sums(db, run.id, group_by)
        counts = sums.verdicts
        newest = browser.latest(run.id, latest) if latest else []
        status = db.effective_status(run)
        eta = run_eta(db, run, counts.results, status)
        summary: list[JsonValue] = [dict(row) for row in summary_rows(db, run.id, group_by, sums)]
    rows: list[JsonValue] = [
        {
            key: value
            for key, value in result_row(run.id, result, group_by).items()
            if isinstance(value, str)
        }
        for result in newest
    ]
    return {
        "run": run.id,
        "status": status,
        "ended_at": run.ended_at or "-",
        "counts": dict(counts._asdict()),
        "done": eta.done,
        "total": eta.total,
        "items": eta.items_text(),
        "eta_s": eta.seconds,
        "eta": eta.eta_text(),
        "summary": summary,
        "latest": rows,
    }
