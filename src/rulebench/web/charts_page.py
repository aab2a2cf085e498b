"""A run's charts page: what `rulebench report` draws for the run, as inline SVG.

Its own page, linked from the run page, because the charts need every result of the run
(the report's intervals average a case's repeats first), while the run page reads one page of
items however big the run.
"""

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from rulebench.core.errors import RulebenchError
from rulebench.report.kinds import DEFAULT_EXTRACT, ExtractMode
from rulebench.web.charts import ChartView, inferential_charts, scenario_charts
from rulebench.web.templating import render_page, run_url
from rulebench.web.views import open_run, run_header

router = APIRouter()

CHARTED_TASKS = ("scenarios", "inferential")
"""The tasks whose report draws charts."""


@router.get("/runs/{run_id}/charts", response_class=HTMLResponse)
def charts_page(
    request: Request,
    run_id: str,
    extract: Annotated[ExtractMode, Query(description="Inferential: scoring mode.")] = (
        DEFAULT_EXTRACT
    ),
) -> HTMLResponse:
    """The run's charts: pass rates with intervals (scenarios), the report's figures."""
    with open_run(request, run_id) as (db, run):
        header = run_header(db, run)
        charts: list[ChartView] = []
        problem = ""
        try:
            if run.task == "scenarios":
                charts = scenario_charts(db.iter_outcomes(run.id))
            elif run.task == "inferential":
                charts = inferential_charts(db, run.id, extract)
        except RulebenchError as exc:  # results the report cannot read either: say which
            problem = f"The report cannot chart this run: {exc}"
    return render_page(
        "charts.html",
        {
            "title": f"Charts of run {run.id}",
            "store": request.app.state.store_label,
            "run": header,
            "charts": charts,
            "problem": problem,
            "task_charted": run.task in CHARTED_TASKS,
            "inferential": run.task == "inferential",
            "extract": extract,
            "self_url": f"{run_url(run.id)}/charts",
        },
    )
