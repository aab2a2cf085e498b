"""One item of a run: prompt, raw reply, the answer in each extraction mode and the verdict.

Also why the verdict is what it is, each reply's thinking (collapsed above its answer), and
everything else the store kept about the item.
"""

import json
from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse
from pydantic import JsonValue

from rulebench.core.items import ItemResult
from rulebench.engine.browse import verdict_of
from rulebench.web.templating import render_page
from rulebench.web.views import (
    VERDICT_LABELS,
    NotFound,
    error_text,
    json_or_empty,
    open_run,
    run_header,
)

router = APIRouter()

EXTRACT_MODES = ("paper", "robust")
"""Inferential items keep both readings of a reply (details["paper"], details["robust"])."""


@router.get("/runs/{run_id}/items/{item_id:path}", response_class=HTMLResponse)
def item_page(
    request: Request,
    run_id: str,
    item_id: Annotated[str, Path(description="Item id.")],
) -> HTMLResponse:
    """Everything stored about one item of a run."""
    with open_run(request, run_id) as (db, run):
        header = run_header(db, run)
        result = db.browser().result(run.id, item_id)
    if result is None:
        raise NotFound(f"run {run.id} has no result for item '{item_id}'")
    return render_page(
        "item.html",
        {
            "title": f"Item {item_id}",
            "store": request.app.state.store_label,
            "run": header,
            "item": _item(result),
        },
    )


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
