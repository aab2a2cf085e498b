"""A store whose results carry a reasoning model's thinking, for the explorer's tests."""

from pathlib import Path

from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message, Usage
from rulebench.engine.store.database import Store

from tests.web.explorer_store import HOSTILE

EARLY_THOUGHT = "weighing turquoise against teal"
LAST_THOUGHT = "counting pebbles before answering " + HOSTILE
CUT_THOUGHT = "still wondering about marmalade"


def thinking_results() -> tuple[ItemResult, ItemResult]:
    """A two-turn result whose both replies thought first, and one whose thinking was cut."""
    finished = ItemResult(
        item_id="thought",
        messages=(
            Message(role="user", content="pick a colour"),
            Message(role="assistant", content="blue", reasoning=EARLY_THOUGHT),
            Message(role="user", content="and a number"),
            Message(role="assistant", content="seven", reasoning=LAST_THOUGHT),
        ),
        reply="seven",
        reasoning=LAST_THOUGHT,
        outcome=Outcome(passed=True, reason="no rule broken"),
        usage=Usage(prompt_tokens=20, completion_tokens=50, reasoning_tokens=40),
    )
    cut = ItemResult(
        item_id="cut",
        messages=(
            Message(role="user", content="pick a fruit"),
            Message(role="assistant", content="", reasoning=CUT_THOUGHT),
        ),
        reply="",
        reasoning=CUT_THOUGHT,
        is_reasoning_unfinished=True,
        outcome=Outcome(passed=None, reason="the thinking never finished: no answer"),
        usage=Usage(prompt_tokens=10, completion_tokens=64, reasoning_tokens=64),
    )
    return finished, cut


def thinking_run(store: Path) -> str:
    """A finished run of `thinking_results`, written by the store's writer; its id."""
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/thinker", {"task": "scenarios"})
        writer = db.writer()
        for result in thinking_results():
            writer.put_result(run.id, result)
        writer.close()
        db.finish_run(run.id, "completed", {})
    return run.id
