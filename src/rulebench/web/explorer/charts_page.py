"""A run's charts page: what `rulebench report` draws for the run, as inline SVG.

Its own page, linked from the run page. A scenarios run's rates are summed in SQL
(`chart_rates`); an inferential run's figures need every reply read by the chosen extraction,
as the report reads them. Either way a run's charts are kept until its results change
(`run_memo`), as the run page keeps its aggregates: a second view draws nothing again.
"""

from functools import partial
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from rulebench.core.errors import RulebenchError
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord
from rulebench.report.kinds import DEFAULT_EXTRACT, ExtractMode
from rulebench.web.explorer.charts import ChartView, inferential_charts, scenario_charts
from rulebench.web.explorer.run_memo import remembered, run_state
from rulebench.web.explorer.views import open_run, run_header
from rulebench.web.templating import render_page, run_url

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
        charts, problem = remembered(
            run_state(db, run), f"charts:{extract}", partial(_charts, db, run, extract)
        )
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


def _charts(db: Store, run: RunRecord, extract: ExtractMode) -> tuple[list[ChartView], str]:
    """The run's charts, or why the report cannot draw them ("" when it can)."""
    try:
        if run.task == "scenarios":
            return scenario_charts(db, run.id), ""
        if run.task == "inferential":
            return inferential_charts(db, run.id, extract), ""
    except RulebenchError as exc:  # results the report cannot read either: say which
        return [], f"The report cannot chart this run: {exc}"
    return [], ""
