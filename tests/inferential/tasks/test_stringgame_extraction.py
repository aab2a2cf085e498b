"""StringGame numbers: the plain (paper) reading pinned, robust fixes checked."""

import pytest

from rulebench.core.rules import Sample
from rulebench.inferential.judge import judge
from rulebench.inferential.tasks.stringgame.extraction import normalize_number


def both(reply: str, gold: str) -> tuple[tuple[str | None, bool], ...]:
    sample = Sample(id="s", task="stringgame", question="q", gold=gold, golden_rule="1")
    return tuple(
        (j.answer, j.correct)
        for j in (judge("stringgame", reply, sample, mode) for mode in ("paper", "robust"))
    )


def test_target_format_is_right_in_both_modes() -> None:
    assert both("Based on the 2nd rule, the answer is 12.", "12") == (("12", True), ("12", True))


def test_paper_takes_the_last_integer_even_after_the_answer() -> None:
    assert both("The answer is 12 (rule 2)", "12") == (("2", False), ("12", True))


@pytest.mark.parametrize(
    ("reply", "paper"), [("The answer is **1,234**.", "234"), ("answer: 12.0", "0")]
)
def test_paper_splits_numbers_at_commas_and_dots(reply: str, paper: str) -> None:
    gold = normalize_number(reply.split()[-1].strip("*.")) or ""
    assert both(reply, gold) == ((paper, False), (gold, True))


def test_robust_falls_back_to_the_last_number() -> None:
    assert both("Rule 3 gives 1,234", "1234") == (("234", False), ("1234", True))


def test_negative_numbers_and_markdown() -> None:
    assert both("**Answer:** $-3$", "-3") == (("-3", True), ("-3", True))


def test_no_number_is_wrong() -> None:
    assert both("I am not sure.", "4") == ((None, False), (None, False))


@pytest.mark.parametrize(
    ("text", "number"),
    [("1,234", "1234"), ("007", "7"), ("12.50", "12.5"), ("-0", "0"), ("3.0", "3"), ("x", None)],
)
def test_normalize_number(text: str, number: str | None) -> None:
    assert normalize_number(text) == number


@pytest.mark.parametrize(
    "reply",
    [
        "Rule 2 gives 18.\x1b[2J Answer: A",
        "Applying rule 3 to 14 letters... Answer: none of them",
        "The answer is:\n**B**",
        "Counting 7 vowels, the answer is unknown.",
    ],
)
def test_an_answer_line_without_a_number_is_wrong_in_both_modes(reply: str) -> None:
    gold = "18" if "18" in reply else ("14" if "14" in reply else "7")
    assert both(reply, gold) == ((None, False), (None, False))


def test_an_answer_on_the_line_after_its_marker_still_reads() -> None:
    assert both("Rule 1 applies.\nAnswer:\n**12**", "12") == (("12", True), ("12", True))


def test_a_number_later_on_the_answer_line_still_counts() -> None:
    assert both("Rule 4. The answer is rule 2's output, 9", "9") == (("9", True), ("9", True))


def test_the_last_answer_line_decides_even_after_an_earlier_numeric_one() -> None:
    assert both("Answer: 12\nOn reflection, the final answer: A", "12") == (
        (None, False),
        (None, False),
    )
