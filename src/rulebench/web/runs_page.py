"""The explorer's home: the store's runs with their scores, filtered, sorted and paged.

Sorting and the text filter work over every matching run, not just a page: the runs table
is small, their counts and tokens come from one SQL aggregate, and scores (the report's,
`run_scores`) are computed for all matching runs only when the list is sorted by score.
"""

from collections.abc import Callable
from typing import Annotated, Literal, NamedTuple

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from rulebench.engine.browse import RunFilter, RunUsage
from rulebench.engine.records import RunRecord
from rulebench.engine.store import Store
from rulebench.web.config_diff import flat_config, run_labels
from rulebench.web.paging import Paged, Pager
from rulebench.web.run_prices import RunPrices
from rulebench.web.run_scores import Headline, headline_of
from rulebench.web.templating import query_url, render_page
from rulebench.web.views import open_store, run_header

router = APIRouter()

STATUSES = ("running", "completed", "interrupted", "failed", "killed")
SortKey = Literal["started", "score", "n", "errors", "tokens", "cost", "task", "label"]
COLUMNS: tuple[tuple[SortKey, str], ...] = (
    ("label", "run"),
    ("task", "task"),
    ("score", "score"),
    ("n", "n"),
    ("errors", "errors"),
    ("tokens", "tokens"),
    ("cost", "cost"),
    ("started", "started"),
)
"""The sortable columns in order, with their headers."""
_TEXT_KEYS = ("task", "label")
"""Keys sorted A to Z unless asked otherwise; the others start with the largest."""
MAX_LISTED = 10_000
"""Most runs one list sorts (newest first before sorting)."""


class RunsQuery(Paged):
    """The runs list's query string ("" means any, as forms send it)."""

    task: str | None = None
    """Benchmark family (the run's task), exactly."""
    model: str | None = None
    """Text the model spec contains."""
    status: str | None = None
    """Effective status: running, completed, interrupted, failed or killed."""
    q: str | None = None
    """Text the run's id, task, model or (redacted) settings contain."""
    sort: SortKey = "started"
    order: Literal["", "asc", "desc"] = ""
    """"" sorts text columns A to Z and the others largest first."""

    def descending(self) -> bool:
        """Whether the rows go from the largest value down."""
        return self.order == "desc" or (not self.order and self.sort not in _TEXT_KEYS)

    def params(self) -> dict[str, object]:
        """The filters and sort as query parameters, defaults left out."""
        found = self.model_dump(include={"task", "model", "status", "q", "sort", "order"})
        return found | {"sort": None if self.sort == "started" else self.sort}


@router.get("/", response_class=HTMLResponse)
def runs_list(request: Request, query: Annotated[RunsQuery, Query()]) -> HTMLResponse:
    """Runs with score, counts, tokens and cost; filter by task, model, status and text."""
    with open_store(request) as db:
        runs = _matching(db, query)
        scores = {run.id: headline_of(db, run) for run in runs} if query.sort == "score" else {}
        prices = RunPrices.from_environment(request.app.state.show_paths)
        usage = db.browser().run_usage([run.id for run in runs])
        listing = Listing(run_labels(runs), usage, scores, prices)
        runs = _sorted(runs, query, _sort_value(query.sort, listing))
        pager = Pager(query.page, query.size, len(runs))
        rows = [_row(db, run, listing) for run in runs[pager.offset : pager.offset + query.size]]
        choices = {"task": db.browser().run_values("task"), "status": list(STATUSES)}
        recent = [run_header(db, run) for run in db.list_runs(200)]
    params = query.params()
    return render_page(
        "runs.html",
        {
            "title": "Runs",
            "store": request.app.state.store_label,
            "runs": rows,
            "filters": params,
            "choices": choices,
            "columns": _headers(query),
            "pager": pager,
            "links": pager.links("/", params),
            "recent": recent,
            "prices": prices.source,
            "price_problem": prices.problem,
        },
    )


def _matching(db: Store, query: RunsQuery) -> list[RunRecord]:
    """Every run the filters keep, newest first (at most MAX_LISTED).

    "running" and "killed" are both stored as running (whether the process lives decides),
    so those two are told apart here.
    """
    status = query.status or None
    stored = "running" if status in ("running", "killed") else status
    where = RunFilter(task=query.task or None, model=query.model or None, status=stored)
    runs = db.browser().runs(where, 0, MAX_LISTED)
    if status in ("running", "killed"):
        runs = [run for run in runs if db.effective_status(run) == status]
    if query.q:
        text = query.q.casefold()
        runs = [run for run in runs if text in _searchable(run)]
    return runs


def _searchable(run: RunRecord) -> str:
    settings = " ".join(f"{k}={v}" for k, v in flat_config(run.config).items())
    return f"{run.id} {run.task} {flat_config({'model': run.model})['model']} {settings}".casefold()


SortValue = Callable[[RunRecord], tuple[bool, float | str]]


class Listing(NamedTuple):
    """What the list knows of its runs besides their records."""

    labels: dict[str, str]
    usage: dict[str, RunUsage]
    scores: dict[str, Headline]
    """Filled for every run only when sorting by score; else the page's rows compute theirs."""
    prices: RunPrices


def _sort_value(key: SortKey, listing: Listing) -> SortValue:
    """(has no value, value) of a run for `key`: runs without one go last either way."""

    def value(run: RunRecord) -> tuple[bool, float | str]:
        used = listing.usage[run.id]
        found: float | str | None
        if key == "score":
            headline = listing.scores.get(run.id)
            found = headline.value if headline else None
        elif key == "cost":
            found = listing.prices.cost_usd(run.model, used)
        else:
            columns: dict[str, float | str] = {
                "started": run.started_at,
                "task": run.task,
                "label": listing.labels[run.id].casefold(),
                "n": used.results,
                "errors": used.errors,
                "tokens": used.input_tokens + used.output_tokens,
            }
            found = columns[key]
        return (found is None, "" if found is None else found)

    return value


def _sorted(runs: list[RunRecord], query: RunsQuery, value: SortValue) -> list[RunRecord]:
    with_value = [run for run in runs if not value(run)[0]]
    without = [run for run in runs if value(run)[0]]
    ordered = sorted(with_value, key=lambda run: value(run)[1], reverse=query.descending())
    return ordered + without  # stable: ties keep newest first


def _row(db: Store, run: RunRecord, listing: Listing) -> dict[str, object]:
    scores, used = listing.scores, listing.usage[run.id]
    headline = scores[run.id] if run.id in scores else headline_of(db, run)
    cost = listing.prices.cost_usd(run.model, used)
    return run_header(db, run) | {
        "label": listing.labels[run.id],
        "score": "-" if headline.value is None else f"{100 * headline.value:.1f}",
        "score_text": headline.text,
        "n": "-" if headline.value is None else headline.n,
        "results": used.results,
        "errors": used.errors,
        "tokens": f"{used.input_tokens + used.output_tokens:,}",
        "cost": "-" if cost is None else f"${cost:,.4f}",
    }


def _headers(query: RunsQuery) -> list[dict[str, str | None]]:
    """Each column's header: its sort link (the current one flips the order) and aria-sort."""
    base = query.params()
    found = []
    for key, name in COLUMNS:
        current = key == query.sort
        if current:
            order = "asc" if query.descending() else "desc"
        else:
            order = "asc" if key in _TEXT_KEYS else "desc"
        found.append(
            {
                "key": key,
                "name": name,
                "url": query_url("/", base | {"sort": key, "order": order, "page": None}),
                "aria": ("descending" if query.descending() else "ascending") if current else None,
            }
        )
    return found
