"""ULogic truth values: paper quirks pinned, robust fixes checked."""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulebench.core.rules import Sample
from rulebench.inferential.judge import judge
from rulebench.inferential.tasks.ulogic import paper_answer

RELEASED = re.compile(r"Answer: (.*?)\.")


def both(
    reply: str, gold: str = "true", task: str = "ulogic"
) -> tuple[tuple[str | None, bool], ...]:
    sample = Sample(id="s", task=task, question="q", gold=gold, golden_rule="1")
    return tuple(
        (j.answer, j.correct)
        for j in (judge(task, reply, sample, mode) for mode in ("paper", "robust"))
    )


@pytest.mark.parametrize("task", ["ulogic", "ulogic-cf"])
def test_paper_format_is_right_in_both_modes(task: str) -> None:
    assert both("Answer: True.", "true", task) == (("true", True), ("true", True))
    assert both("Answer: False.", "true", task) == (("false", False), ("false", False))


def test_gold_is_compared_lowercased() -> None:
    assert both("Answer: False.", "False") == (("false", True), ("false", True))


@pytest.mark.parametrize(
    "reply",
    ["Answer: True", "answer: true.", "**Answer:** True.", "Answer: True\n.", "ANSWER:TRUE"],
)
def test_paper_misses_case_markup_and_missing_period_robust_reads_them(reply: str) -> None:
    assert both(reply) == ((None, False), ("true", True))


def test_paper_reads_trailing_notes_into_the_value() -> None:
    assert both("Answer: True, because Sam owns it.") == (
        ("true, because sam owns it", False),
        ("true", True),
    )


def test_first_match_wins_in_both_modes() -> None:
    assert both("Answer: False. Answer: True.") == (("false", False), ("false", False))


def test_robust_skips_an_answer_word_not_followed_by_a_value() -> None:
    assert both("To answer the question: Answer: True.") == (("true", True), ("true", True))
    assert both("Answer: it depends on Sam. Answer: True") == (
        ("it depends on sam", False),
        ("true", True),
    )


def test_abstentions_are_read_and_wrong() -> None:
    assert both("Answer: CannotJudge.") == (("cannotjudge", False), ("cannotjudge", False))


def test_robust_reads_a_bare_value_reply() -> None:
    assert both("True.") == ((None, False), ("true", True))
    assert both("**false**", "false") == ((None, False), ("false", True))
    assert both("True!") == ((None, False), ("true", True))


def test_a_value_outside_the_answer_set_is_no_answer_in_robust_mode() -> None:
    assert both("Answer: Yes.") == (("yes", False), (None, False))


@given(
    st.lists(
        st.sampled_from(["Answer: ", "Answer:", "answer: ", ".", "\n", "\r", "True", " ", "x"]),
        max_size=14,
    ).map("".join)
)
def test_paper_reading_equals_the_released_regular_expression(reply: str) -> None:
    found = RELEASED.search(reply)
    assert paper_answer(reply) == (found.group(1).lower() if found else None)
