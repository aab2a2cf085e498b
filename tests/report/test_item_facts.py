"""What is said around a stored item's transcript: thinking labels and the verdict."""

from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message
from rulebench.report.item_facts import (
    CUT_LABEL,
    indented,
    item_json,
    thinking_label,
    verdict_lines,
)


def conversation(is_cut: bool) -> ItemResult:
    messages = (
        Message(role="user", content="q"),
        Message(role="assistant", content="a", reasoning="because"),
        Message(role="user", content="again"),
        Message(role="assistant", content=""),
    )
    return ItemResult(item_id="i", messages=messages, is_reasoning_unfinished=is_cut)


def test_thinking_is_labelled_where_shown_and_a_cut_last_reply_says_so() -> None:
    finished = conversation(is_cut=False)
    assert [thinking_label(finished, i) for i in range(4)] == [None, "thinking", None, None]
    cut = conversation(is_cut=True)
    assert thinking_label(cut, 3) == CUT_LABEL


def test_the_json_keeps_each_turns_thinking_with_the_turn() -> None:
    turns = item_json(conversation(is_cut=False))["messages"]
    assert turns == [
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a", "reasoning": "because"},
        {"role": "user", "content": "again"},
        {"role": "assistant", "content": ""},
    ]


def test_the_verdict_names_what_is_known_and_its_reason() -> None:
    assert verdict_lines(Outcome(answer="yes", score=1.0)) == ['verdict: answer "yes", score 1.0']
    assert verdict_lines(Outcome(reason="turn 2 broke rule 1")) == [
        "verdict: not counted",
        "reason: turn 2 broke rule 1",
    ]
    assert indented("") == "    " and indented("a\nb") == "    a\n    b"
