"""`rulebench runs show RUN --item ID`: one stored item's transcript, thinking and verdict.

A terminal has no collapsed block: each reply's thinking is printed dimmed under its own
label, above the answer it led to, so the answer (what was scored) stays apart from it.
"""

import json
from typing import TYPE_CHECKING

from pydantic import JsonValue

from rulebench.cli.console import out
from rulebench.core.errors import ConfigError
from rulebench.report.untrusted import safe_text

if TYPE_CHECKING:
    from rulebench.core.items import ItemResult
    from rulebench.core.messages import Message
    from rulebench.engine.store.database import Store

CUT_LABEL = "thinking (unfinished: cut short by the reply limit, so no answer)"


def stored_item(db: "Store", run_id: str, item_id: str) -> "ItemResult":
    """The item's result, or a ConfigError naming the run and the item."""
    result = db.browser().result(run_id, item_id)
    if result is None:
        raise ConfigError(f"run {run_id} has no result for item '{item_id}'")
    return result


def item_json(result: "ItemResult") -> dict[str, JsonValue]:
    """The result as --json prints it: every turn's thinking kept with the turn."""
    payload: dict[str, JsonValue] = result.model_dump(mode="json")
    payload["messages"] = [_turn_json(m) for m in result.messages]
    return payload


def _turn_json(message: "Message") -> JsonValue:
    turn: dict[str, JsonValue] = {"role": message.role, "content": message.content}
    if message.reasoning:
        turn["reasoning"] = message.reasoning
    return turn


def print_item(result: "ItemResult") -> None:
    """The transcript turn by turn, then the verdict; stored text is never markup."""
    last = len(result.messages) - 1
    for index, message in enumerate(result.messages):
        out.print(safe_text(f"{message.role}:", style="bold"), highlight=False)
        is_cut = index == last and result.is_reasoning_unfinished
        if message.reasoning or is_cut:
            label = CUT_LABEL if is_cut else "thinking"
            out.print(safe_text(f"  {label}:", style="yellow" if is_cut else "dim"))
            out.print(safe_text(_indented(message.reasoning or ""), style="dim"), highlight=False)
            out.print(safe_text("  answer:", style="dim"))
        out.print(safe_text(_indented(message.content)), highlight=False)
    if result.error is not None:
        out.print(safe_text(f"error: {result.error}", style="red"), highlight=False)
    outcome = result.outcome
    if outcome is not None:
        shown = {"answer": outcome.answer, "score": outcome.score, "passed": outcome.passed}
        facts = ", ".join(f"{k} {json.dumps(v)}" for k, v in shown.items() if v is not None)
        out.print(safe_text(f"verdict: {facts or 'not counted'}"), highlight=False)
        if outcome.reason:
            out.print(safe_text(f"reason: {outcome.reason}"), highlight=False)


def _indented(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.splitlines() or [""])
