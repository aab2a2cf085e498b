"""One stored item as `rulebench runs show RUN --item ID` shows it: its JSON and its labels.

The transcript's text is the store's; what is said around it (the thinking labels, the
verdict line) is composed here, as plain text a front end escapes before rendering.
"""

import json

from pydantic import JsonValue

from rulebench.core.errors import ConfigError
from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message
from rulebench.engine.store.database import Store

CUT_LABEL = "thinking (unfinished: cut short by the reply limit, so no answer)"
"""The label of the last reply's thinking when the reply limit cut it (it has no answer)."""


def stored_item(db: Store, run_id: str, item_id: str) -> ItemResult:
    """The item's result.

    Raises:
        ConfigError: the run has no result for the item (naming both).
    """
    result = db.browser().result(run_id, item_id)
    if result is None:
        raise ConfigError(f"run {run_id} has no result for item '{item_id}'")
    return result


def item_json(result: ItemResult) -> dict[str, JsonValue]:
    """The result as --json prints it: every turn's thinking kept with the turn."""
    payload: dict[str, JsonValue] = result.model_dump(mode="json")
    payload["messages"] = [_turn_json(m) for m in result.messages]
    return payload


def _turn_json(message: Message) -> JsonValue:
    turn: dict[str, JsonValue] = {"role": message.role, "content": message.content}
    if message.reasoning:
        turn["reasoning"] = message.reasoning
    return turn


def thinking_label(result: ItemResult, index: int) -> str | None:
    """The label above turn `index`'s thinking: plain, cut short, or None (none to show)."""
    message = result.messages[index]
    if index == len(result.messages) - 1 and result.is_reasoning_unfinished:
        return CUT_LABEL
    return "thinking" if message.reasoning else None


def verdict_lines(outcome: Outcome) -> list[str]:
    """The verdict (answer, score, passed, where known) and the reason it gives."""
    shown = {"answer": outcome.answer, "score": outcome.score, "passed": outcome.passed}
    facts = ", ".join(f"{k} {json.dumps(v)}" for k, v in shown.items() if v is not None)
    lines = [f"verdict: {facts or 'not counted'}"]
    if outcome.reason:
        lines.append(f"reason: {outcome.reason}")
    return lines


def indented(text: str) -> str:
    """Stored text indented under its label, an empty text as one empty line."""
    return "\n".join(f"    {line}" for line in text.splitlines() or [""])
