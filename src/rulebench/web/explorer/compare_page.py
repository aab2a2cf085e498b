"""Two runs side by side: their configurations diffed, and their items with McNemar's test.

The counts come from one SQL join (never both runs in memory) and pair items as the scenarios
report does, so the p-value here is the report's (`mcnemar_exact` on the same counts). Runs of
two stores are joined through one connection that attaches both (`engine.store.paired_stores`).
"""

import contextlib
from collections.abc import Iterator
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import JsonValue

from rulebench.core.stats import mcnemar_exact
from rulebench.engine.store.browse import Pair, PairedCounts, PairFilter, StoreBrowser
from rulebench.engine.store.database import Store
from rulebench.engine.store.paired_stores import paired_browser
from rulebench.engine.store.records import RunRecord
from rulebench.web.explorer.config_diff import diff_rows
from rulebench.web.explorer.run_memo import remembered, run_state
from rulebench.web.explorer.views import locate_run, open_stores, result_row, run_header
from rulebench.web.paging import Paged, Pager
from rulebench.web.templating import render_page

router = APIRouter()

SHOWN: dict[PairFilter, str] = {
    "all": "all items of the first run",
    "differ": "verdicts differ",
    "only-first": "only the first passed",
    "only-second": "only the second passed",
}


Located = tuple[Store, RunRecord]
"""A run with the store it is read from."""


def paired_numbers(
    browser: StoreBrowser, first: RunRecord, second: RunRecord
) -> dict[str, JsonValue]:
    """The paired test's counts and p-value (None without pairs), as the JSON API gives them."""
    counts: PairedCounts = browser.paired_counts(first.id, second.id)
    p_value = mcnemar_exact(counts.only_first_passed, counts.only_second_passed)
    return {
        "first": first.id,
        "second": second.id,
        **counts._asdict(),
        "p_value": p_value if counts.pairs else None,
    }


class CompareQuery(Paged):
    """The compare page's query string: the two runs, which of their items, which page."""

    a: str | None = None
    """The first run's id (or a unique prefix)."""
    b: str | None = None
    show: PairFilter = "all"


@router.get("/compare", response_class=HTMLResponse)
def compare_page(request: Request, query: Annotated[CompareQuery, Query()]) -> HTMLResponse:
    """Pick two runs, or show them side by side with their paired test."""
    context: dict[str, object] = {
        "title": "Compare runs",
        "store": request.app.state.store_label,
        "chosen": {"a": query.a or "", "b": query.b or ""},
        "shown": SHOWN,
        "show": query.show,
    }
    with open_stores(request) as stores:
        context["recent"] = [run_header(store, run) for store, run in stores.list_runs(200)]
        if query.a and query.b:
            runs = (locate_run(stores, query.a), locate_run(stores, query.b))
            with pair_reader(*runs) as browser:
                context |= _comparison(runs, browser, query)
    return render_page("compare.html", context)


@contextlib.contextmanager
def pair_reader(first: Located, second: Located) -> Iterator[StoreBrowser]:
    """A browser pairing the two runs: their store's, or one joining their two stores."""
    if first[0] is second[0]:
        yield first[0].browser()
        return
    with paired_browser((first[0], first[1].id), (second[0], second[1].id)) as browser:
        yield browser


def _comparison(
    runs: tuple[Located, Located], browser: StoreBrowser, query: CompareQuery
) -> dict[str, object]:
    (first_store, first), (second_store, second) = runs
    show = query.show
    # Both runs' states: the pair counts and the paired test are the same on every page.
    states = (*run_state(first_store, first), *run_state(second_store, second))
    paired = remembered(
        states, f"pairs:{show}", lambda: browser.count_pairs(first.id, second.id, show)
    )
    pager = Pager(query.page, query.size, paired)
    pairs = browser.pairs(first.id, second.id, show, pager.offset, query.size)
    numbers = remembered(states, "paired numbers", lambda: paired_numbers(browser, first, second))
    p_value = numbers["p_value"]
    config_rows = diff_rows(first, second)
    return {
        "config_rows": config_rows,
        "config_differs": sum(row.differs for row in config_rows),
        "chosen": {"a": first.id, "b": second.id},
        "first": run_header(first_store, first),
        "second": run_header(second_store, second),
        "numbers": numbers,
        "p_text": "n/a" if not isinstance(p_value, float) else f"{p_value:.4g}",
        "rows": [_pair_row(pair, first.id, second.id) for pair in pairs],
        "pager": pager,
        "links": pager.links(
            "/compare", {"a": first.id, "b": second.id, "show": None if show == "all" else show}
        ),
    }


def _pair_row(pair: Pair, first: str, second: str) -> dict[str, object]:
    return {
        "first": result_row(first, pair.first, None),
        "second": None if pair.second is None else result_row(second, pair.second, None),
    }


@router.get("/api/compare")
def compare_numbers(request: Request, a: str, b: str) -> dict[str, JsonValue]:
    """The paired test of two runs as JSON (what the compare page shows)."""
    with open_stores(request) as stores:
        runs = (locate_run(stores, a), locate_run(stores, b))
        with pair_reader(*runs) as browser:
            return paired_numbers(browser, runs[0][1], runs[1][1])
