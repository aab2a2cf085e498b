"""The explorer's home: the store's runs with their scores, filtered, sorted and paged.

Sorting and the text filter work over every matching run, not just a page. Every number is
the report's: the headline score and its n (`run_scores`), errors, tokens and cost
(`report.usage.run_totals`); each is computed for all matching runs only when the list is
sorted by its column, else for the page's rows.
"""

from collections.abc import Callable
from typing import Annotated, Literal, NamedTuple

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from rulebench.engine.store.browse import RunFilter
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord
from rulebench.engine.store.store_set import StoreSet
from rulebench.engine.summary import GroupSummary
from rulebench.report.tables import format_usd
from rulebench.report.usage import totals_of
from rulebench.web.explorer.config_diff import flat_config, run_labels
from rulebench.web.explorer.run_prices import RunPrices
from rulebench.web.explorer.run_scores import Headline, headline_of
from rulebench.web.explorer.run_tallies import RunSums, run_sums, run_tallies
from rulebench.web.explorer.views import open_stores, run_header, store_label
from rulebench.web.paging import Paged, Pager
from rulebench.web.templating import query_url, render_page

router = APIRouter()

STATUSES = ("running", "completed", "partial", "interrupted", "failed", "killed")
"""The statuses a run can read as; "partial": joined from shards, some still missing."""
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
_SCORED = {"score": "value", "n": "n"}
"""Sort keys read from the headline (`run_scores`), with the field each reads."""
_TOTALLED = ("errors", "tokens", "cost")
"""Sort keys read from the report's token totals (`report.usage.run_totals`)."""


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
    with open_stores(request) as stores:
        matching = _matching_in(stores, query)
        runs = [run for run, _ in matching.values()]
        store_of = {run_id: store for run_id, (_, store) in matching.items()}
        prices = RunPrices.from_environment(request.app.state.show_paths)
        listing = Listing(run_labels(runs), {}, {}, prices)
        # Sorting by a column needs its value for every run; else only the page's rows get one.
        if query.sort in _SCORED:
            listing.scores.update((run.id, headline_of(store_of[run.id], run)) for run in runs)
        if query.sort in _TOTALLED:
            listing.totals.update((run.id, _totals(store_of[run.id], run, prices)) for run in runs)
        runs = _sorted(runs, query, _sort_value(query.sort, listing))
        pager = Pager(query.page, query.size, len(runs))
        rows = [
            _row(store_of[run.id], run, listing) | {"store": store_label(request, store_of[run.id])}
            for run in runs[pager.offset : pager.offset + query.size]
        ]
        tasks = {task for store in stores.stores for task in store.browser().run_values("task")}
        choices = {"task": sorted(tasks), "status": list(STATUSES)}
        recent = [run_header(store, run) for store, run in stores.list_runs(200)]
    params = query.params()
    return render_page(
        "runs.html",
        {
            "title": "Runs",
            "store": request.app.state.store_label,
            "several": stores.is_several,
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


def _matching_in(stores: StoreSet, query: RunsQuery) -> dict[str, tuple[RunRecord, Store]]:
    """Every run of every store the filters keep, newest first (at most MAX_LISTED), by id.

    A run two stores hold (the same run: the app refused different ones at its start) is
    read from the first store given.
    """
    found = [(run, store) for store in stores.stores for run in _matching(store, query)]
    found.sort(key=lambda pair: pair[0].started_at, reverse=True)  # stable: store order
    kept: dict[str, tuple[RunRecord, Store]] = {}
    for run, store in found:
        kept.setdefault(run.id, (run, store))
    return dict(list(kept.items())[:MAX_LISTED])


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
    """What the list knows of its runs besides their records.

    `scores` and `totals` hold every run only when the list is sorted by one of their columns;
    else the page's rows compute their own.
    """

    labels: dict[str, str]
    totals: dict[str, GroupSummary]
    """The report's token totals and cost (`report.usage.run_totals`)."""
    scores: dict[str, Headline]
    prices: RunPrices


def _sort_value(key: SortKey, listing: Listing) -> SortValue:
    """(has no value, value) of a run for `key`: runs without one go last either way.

    Each is the number its column shows: n is the headline's n (none without a headline),
    tokens the report's tokens in plus out.
    """

    def value(run: RunRecord) -> tuple[bool, float | str]:
        found: float | str | None
        if key in _SCORED:
            headline = listing.scores[run.id]
            found = None if headline.value is None else getattr(headline, _SCORED[key])
        elif key in _TOTALLED:
            total = listing.totals[run.id]
            found = {
                "errors": total.errors,
                "tokens": total.prompt_tokens + total.completion_tokens,
                "cost": total.cost_usd,
            }[key]
        else:
            found = {
                "started": run.started_at,
                "task": run.task,
                "label": listing.labels[run.id].casefold(),
            }[key]
        return (found is None, "" if found is None else found)

    return value


def _sorted(runs: list[RunRecord], query: RunsQuery, value: SortValue) -> list[RunRecord]:
    with_value = [run for run in runs if not value(run)[0]]
    without = [run for run in runs if value(run)[0]]
    ordered = sorted(with_value, key=lambda run: value(run)[1], reverse=query.descending())
    return ordered + without  # stable: ties keep newest first


def _row(db: Store, run: RunRecord, listing: Listing) -> dict[str, object]:
    sums = run_sums(db, run.id)
    headline = listing.scores.get(run.id) or headline_of(db, run, sums)
    total = listing.totals.get(run.id) or _totals(db, run, listing.prices, sums)
    return run_header(db, run) | {
        "label": listing.labels[run.id],
        "score": "-" if headline.value is None else f"{100 * headline.value:.1f}",
        "score_text": headline.text,
        "n": "-" if headline.value is None else headline.n,
        "errors": total.errors,
        # As the report's usage table prints them: tokens in, tokens out, cost.
        "tokens": f"{total.prompt_tokens:,} / {total.completion_tokens:,}",
        "cost": "-" if total.cost_usd is None else format_usd(total.cost_usd),
    }


def _totals(
    db: Store, run: RunRecord, prices: RunPrices, sums: RunSums | None = None
) -> GroupSummary:
    """The report's token totals and cost (`report.usage.run_totals`), from the kept sums."""
    return totals_of(run_tallies(db, run.id, sums=sums), run, prices.table)


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
