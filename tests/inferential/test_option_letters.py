"""DEER and TheoremQA option letters: paper quirks pinned, robust fixes checked."""

import pytest

from rulebench.core.rules import Sample
from rulebench.inferential.judge import judge


def both(task: str, reply: str, gold: str) -> tuple[tuple[str | None, bool], ...]:
    sample = Sample(id="s", task=task, question="q", gold=gold, golden_rule="1")
    return tuple(
        (j.answer, j.correct)
        for j in (judge(task, reply, sample, mode) for mode in ("paper", "robust"))
    )


@pytest.mark.parametrize("reply", ["The answer is B.", "B) Animal B", "the answer is (B)"])
def test_deer_uppercase_option_is_right_in_both_modes(reply: str) -> None:
    assert both("deer", reply, "b") == (("b", True), ("b", True))


@pytest.mark.parametrize(
    "reply",
    [
        "The answer is b",
        "(b)",
        "Answer: B",
        "B",
        "b",
        "B!",
        "**Answer**: b.",
        "Option b)",
        "Answer:\nB",
    ],
)
def test_deer_paper_misses_lowercase_bare_and_capitalised_answer_robust_reads_them(
    reply: str,
) -> None:
    assert both("deer", reply, "b") == ((None, False), ("b", True))


def test_deer_paper_keeps_only_text_after_the_last_lowercase_answer() -> None:
    reply = "The answer is C. Another answer might be A."
    assert both("deer", reply, "c") == (("a", False), ("c", True))


def test_deer_paper_finds_options_inside_words_robust_not() -> None:
    assert both("deer", "In the U.S.A. it is B. that lives", "b") == (("a", False), ("b", True))


def test_deer_paper_checks_a_token_in_option_order() -> None:
    assert both("deer", "B.A.", "a") == (("a", True), (None, False))


def test_deer_robust_does_not_read_the_article_a() -> None:
    assert both("deer", "The answer is a plant with wax: B.", "b") == (("b", True), ("b", True))


def test_deer_paper_takes_the_first_option_token() -> None:
    assert both("deer", "A. is wrong and D. is right", "a") == (("a", True), ("a", True))


@pytest.mark.parametrize("reply", ["Answer: a.", "Answer: a", "Answer: a. Note: trivially true."])
def test_theoremqa_paper_format_is_right_in_both_modes(reply: str) -> None:
    assert both("theoremQA", reply, "a") == (("a", True), ("a", True))


@pytest.mark.parametrize(
    "reply", ["answer: b", "Answer: B", "**Answer:** b", "Answer:b", "The answer is (b).", "b"]
)
def test_theoremqa_paper_misses_case_markup_and_spacing_robust_reads_them(reply: str) -> None:
    assert both("theoremQA", reply, "b") == ((None, False), ("b", True))


def test_theoremqa_paper_reads_a_word_starting_with_a_letter() -> None:
    reply = "Answer: because the series converges, c."
    assert both("theoremQA", reply, "c") == (("b", False), (None, False))


def test_theoremqa_first_match_wins_in_both_modes() -> None:
    assert both("theoremQA", "Answer: a. Wait. Answer: c.", "c") == (("a", False), ("a", False))
