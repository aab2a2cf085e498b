"""Full-text search over the store's results: in one run (`?run=ID`) or across all runs.

Reads the store's FTS5 index (`engine.store.search`): a page of hits and a capped count, never a
whole run. A query SQLite cannot read is answered with the reason on the page, not a 500.
Across several stores the hits are each store's in turn, in the order the stores were given.
"""

import re
from collections.abc import Sequence
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from rulebench.core.errors import ConfigError, StoreError
from rulebench.engine.store.database import Store
from rulebench.engine.store.search import COUNT_CAP, SearchHit, split_marks
from rulebench.web.explorer.views import (
    VERDICT_LABELS,
    hide_store_path,
    locate_run,
    open_stores,
    run_header,
)
from rulebench.web.paging import Paged, Pager
from rulebench.web.templating import item_url, render_page, run_url

router = APIRouter()

_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""Control characters: shown as spaces in the search box, which FTS5 reads them as anyway
(its tokenizer splits words at them), so searching again finds the same items."""


class SearchQuery(Paged):
    """The search page's query string."""

    q: str = ""
    """What to look for, in FTS5's syntax (words, "a phrase", prefix*, OR, NOT, column:word)."""
    run: str | None = None
    """Search this run only (its id or a unique prefix); all runs when empty."""


@router.get("/search", response_class=HTMLResponse)
def search_page(request: Request, query: Annotated[SearchQuery, Query()]) -> HTMLResponse:
    """A search box, and a page of matching items with the passage around each match."""
    context: dict[str, object] = {
        "title": "Search",
        "store": request.app.state.store_label,
        "q": _CONTROLS.sub(" ", query.q),
        "run": None,
        "hits": [],
        "problem": None,
        "searched": bool(query.q.strip()),
    }
    status_code = 200
    with open_stores(request) as stores:
        searched: Sequence[tuple[Store, Sequence[str]]] = list(
            zip(stores.stores, stores.runs_held_before(), strict=True)
        )
        run = None
        if query.run:
            db, run = locate_run(stores, query.run)
            context["run"], searched = run_header(db, run), [(db, ())]
        if context["searched"]:
            run_id = run.id if run else None
            params = {"q": query.q, "run": run_id}
            try:
                found = sum(db.searcher().count(query.q, run_id, skip) for db, skip in searched)
                pager = Pager(query.page, query.size, min(found, COUNT_CAP))
                hits = _hits(searched, query.q, run_id, pager.offset, query.size)
            except ConfigError as exc:
                context["problem"], status_code = str(exc), 400
            except StoreError as exc:  # named as the page names the store
                context["problem"], status_code = hide_store_path(request, str(exc)), 503
            else:
                context |= {
                    "hits": [_hit_row(hit) for hit in hits],
                    "pager": pager,
                    "links": pager.links("/search", params),
                    "more": found > COUNT_CAP,
                }
    return render_page("search.html", context, status_code)


def _hits(
    stores: Sequence[tuple[Store, Sequence[str]]],
    text: str,
    run_id: str | None,
    offset: int,
    limit: int,
) -> list[SearchHit]:
    """The page of hits at `offset` of all the stores' hits, each store's in turn.

    Each store comes with the runs to leave out of it (held by an earlier store).
    """
    hits: list[SearchHit] = []
    for db, skipped in stores:
        if len(hits) >= limit:
            break
        search = db.searcher()
        found = search.count(text, run_id, skipped) if len(stores) > 1 else offset + limit
        if offset >= found:
            offset -= found
            continue
        hits += search.hits(text, run_id, offset, limit - len(hits), skipped)
        offset = 0
    return hits


def _hit_row(hit: SearchHit) -> dict[str, object]:
    return {
        "run": hit.run_id,
        "run_url": run_url(hit.run_id),
        "item": hit.item_id,
        "url": item_url(hit.run_id, hit.item_id),
        "verdict": hit.verdict,
        "label": VERDICT_LABELS[hit.verdict],
        "pieces": split_marks(hit.snippet),
    }
