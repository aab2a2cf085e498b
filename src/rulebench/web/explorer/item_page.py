"""One item of a run: prompt, raw reply, the answer in each extraction mode and the verdict.

Also why the verdict is what it is, each reply's thinking (collapsed above its answer), and
everything else the store kept about the item. Its query string is the list the item was
opened from (the run page's filters and sort): the previous and next links walk that list,
one bounded query for both (`engine.store.result_order`), and ←/→ follow them
(`static/item-keys.js`).
"""

import json
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import JsonValue

from rulebench.core.items import ItemResult
from rulebench.engine.catalog import TASKS
from rulebench.engine.store.browse import ResultFilter
from rulebench.engine.store.result_order import Neighbours
from rulebench.engine.verdicts import verdict_of
from rulebench.web.explorer.items_query import ItemsQuery
from rulebench.web.explorer.views import (
    VERDICT_LABELS,
    NotFound,
    error_text,
    json_or_empty,
    open_run,
    run_header,
)
from rulebench.web.templating import item_url, query_url, render_page, run_url

router = APIRouter()

EXTRACT_MODES = ("paper", "robust")
"""Inferential items keep both readings of a reply (details["paper"], details["robust"])."""


@router.get("/runs/{run_id}/items/{item_id:path}", response_class=HTMLResponse)
def item_page(
    request: Request,
    run_id: str,
    item_id: Annotated[str, Path(description="Item id.")],
    listed: Annotated[ItemsQuery, Query()],
) -> HTMLResponse:
    """Everything stored about one item of a run, and its neighbours in the list it is in."""
    with open_run(request, run_id) as (db, run):
        header = run_header(db, run)
        browser = db.browser()
        result = browser.result(run.id, item_id)
        if result is None:
            raise NotFound(f"run {run.id} has no result for item '{item_id}'")
        entry = TASKS.get(run.task)
        order = listed.to_order(entry.group_by if entry else None)
        neighbours = browser.neighbours(run.id, listed.to_filter(), order, item_id)
    return render_page(
        "item.html",
        {
            "title": f"Item {item_id}",
            "store": request.app.state.store_label,
            "run": header,
            "item": _item(result),
            "nav": _nav(run.id, listed, neighbours),
        },
    )


def _nav(run_id: str, listed: ItemsQuery, neighbours: Neighbours | None) -> dict[str, object]:
    """The previous/next links (None at the ends), the position and the way back to the list.

    None for the neighbours: the item is not in the list the link names (its filters changed
    or were edited by hand), so there is nothing to walk.
    """
    kept = listed.list_params()
    back = run_url(run_id)
    if neighbours is None:
        return {"position": None, "previous": None, "next": None, "back": back + "#items"}

    def link(item_id: str | None) -> str | None:
        return None if item_id is None else query_url(item_url(run_id, item_id), kept)

    page = (neighbours.position - 1) // listed.size + 1
    is_filtered = listed.to_filter() != ResultFilter()
    return {
        "position": neighbours.position,
        "total": neighbours.total,
        "list": ("filtered " if is_filtered else "")
        + ("items" if listed.sort == "finished" else f"items by {listed.sort}"),
        "previous": link(neighbours.previous),
        "next": link(neighbours.next),
        "back": query_url(back, kept | {"page": page if page > 1 else None}) + "#items",
    }


def _item(result: ItemResult) -> dict[str, object]:
    messages = list(result.messages)
    if result.reply is not None and messages and messages[-1].content == result.reply:
        messages.pop()  # the transcript ends with the reply, shown on its own
    outcome = result.outcome
    verdict = verdict_of(result)
    return {
        "id": result.item_id,
        "verdict": verdict,
        "label": VERDICT_LABELS[verdict],
        "messages": [
            {"role": m.role, "content": m.content, "reasoning": m.reasoning} for m in messages
        ],
        "reply": result.reply,
        "reasoning": result.reasoning,
        "is_reasoning_unfinished": result.is_reasoning_unfinished,
        "error": error_text(result),
        "answer": outcome.answer if outcome else None,
        "gold": _gold(result.metadata),
        "score": None if outcome is None or outcome.score is None else f"{outcome.score:g}",
        "passed": None if outcome is None or outcome.passed is None else _flag(outcome.passed),
        "reason": outcome.reason if outcome else None,
        "extractions": _extractions(outcome.details if outcome else {}),
        "details": json_or_empty(outcome.details if outcome else {}),
        "metadata": json_or_empty(result.metadata),
        "warnings": list(result.warnings),
        "cost": {
            "prompt tokens": result.usage.prompt_tokens,
            "completion tokens": result.usage.completion_tokens,
            "reasoning tokens (of completion)": result.usage.reasoning_tokens,
            "cached tokens (in/out)": (
                f"{result.cached_usage.prompt_tokens}/{result.cached_usage.completion_tokens}"
            ),
            "scoring tokens": result.scoring_tokens,
            "endpoints": ", ".join(result.endpoints) or "-",
            "latency (s)": f"{result.latency_s:.3f}",
            "model calls": result.calls,
            "requests sent (retries included)": result.attempts or "-",
            "cache hits": result.cache_hits,
            "system merged": "yes" if result.system_merged else "no",
        },
    }


def _extractions(details: dict[str, JsonValue]) -> list[dict[str, str]]:
    """One row per extraction mode the item was judged in, marking the one that scored it."""
    scored_by = details.get("extract")
    rows = []
    for mode in EXTRACT_MODES:
        judged = details.get(mode)
        if not isinstance(judged, dict):
            continue
        answer = judged.get("answer")
        rows.append(
            {
                "mode": mode + (" (scored)" if mode == scored_by else ""),
                "answer": "-" if answer is None else str(answer),
                "correct": _flag(judged.get("correct")),
                "refused": _flag(judged.get("refused")),
            }
        )
    return rows


def _gold(metadata: dict[str, JsonValue]) -> str | None:
    """The gold answer an inferential item was scored against (None for other items).

    Under counterfactual rules the stored gold is the counterfactual one, and the page says so.
    """
    gold = metadata.get("gold")
    if gold is None or gold == "":
        return None
    text = gold if isinstance(gold, str) else json.dumps(gold, ensure_ascii=False)
    return f"{text} (counterfactual rules)" if metadata.get("counterfactual") is True else text


def _flag(value: JsonValue) -> str:
    return "-" if value is None else ("yes" if value else "no")
