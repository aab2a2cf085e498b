"""Kinship labels (clutrr, clutrr-cf, kinship): paper quirks pinned, robust fixes checked."""

import pytest

from rulebench.core.rules import Sample
from rulebench.inferential.judge import judge
from rulebench.inferential.tasks.kinship.extraction.labels import LABELS, paper_answer


def sample(gold: str, candidates: tuple[str, ...] = (), task: str = "clutrr") -> Sample:
    return Sample(
        id="s", task=task, question="q", gold=gold, golden_rule="1", candidates=candidates
    )


def both(reply: str, gold: str, task: str = "clutrr") -> tuple[tuple[str | None, bool], ...]:
    return tuple(
        (j.answer, j.correct)
        for j in (judge(task, reply, sample(gold), mode) for mode in ("paper", "robust"))
    )


def test_released_candidates_are_the_twenty_labels() -> None:
    assert len(LABELS) == 20
    assert {"stepson", "stepdaughter", "son-in-law"} <= set(LABELS)


@pytest.mark.parametrize("task", ["kinship", "clutrr", "clutrr-cf"])
def test_plain_label_is_right_in_both_modes(task: str) -> None:
    assert both("Gilbert is Donald's grandfather.", "grandfather", task) == (
        ("grandfather", True),
        ("grandfather", True),
    )


def test_paper_last_candidate_wins_and_case_is_ignored() -> None:
    assert both("Is he the FATHER? No, he is the Uncle.", "uncle") == (
        ("uncle", True),
        ("uncle", True),
    )


def test_paper_falls_back_to_the_last_token_robust_has_no_answer() -> None:
    assert both("I do not know", "aunt") == (("know", False), (None, False))


def test_paper_strips_dot_then_comma_only_in_that_order() -> None:
    # "aunt,." loses "." then ","; "aunt.," keeps its "." because "," was stripped second.
    assert paper_answer("aunt,.") == "aunt"
    assert paper_answer("aunt.,") == "aunt."
    assert both("aunt.,", "aunt") == (("aunt.", False), ("aunt", True))


def test_paper_reads_son_in_law_as_son_robust_joins_it() -> None:
    assert both("He is the son in law of A.", "son-in-law") == (
        ("son", False),
        ("son-in-law", True),
    )
    assert both("son - in - law", "son-in-law")[1] == ("son-in-law", True)
    assert both("Father-In-Law.", "father-in-law") == (
        ("father-in-law", True),
        ("father-in-law", True),
    )


@pytest.mark.parametrize(
    ("reply", "gold"),
    [
        ("Step son.", "stepson"),
        ("step-daughter", "stepdaughter"),
        ("grand daughter", "granddaughter"),
    ],
)
def test_robust_joins_step_and_grand_spellings(reply: str, gold: str) -> None:
    paper, robust = both(reply, gold, "clutrr-cf")
    assert not paper[1]
    assert robust == (gold, True)


@pytest.mark.parametrize(
    "reply", ["**aunt**", "aunt!", "aunt?", '"aunt"', "`aunt`", "Answer: *aunt*"]
)
def test_paper_misses_markup_and_punctuation_robust_reads_it(reply: str) -> None:
    paper, robust = both(reply, "aunt")
    assert not paper[1]
    assert robust == ("aunt", True)


def test_paper_tokens_never_split_on_newlines_or_tabs() -> None:
    assert both("aunt\nThis follows from the rule.", "aunt") == (("rule", False), ("aunt", True))
    assert both("the\taunt", "aunt") == (("the\taunt", False), ("aunt", True))


def test_robust_prefers_the_label_after_the_answer_marker() -> None:
    reply = "The answer is aunt, as K is the sister of A's mother."
    assert both(reply, "aunt") == (("mother", False), ("aunt", True))
    assert both("Answer:\nK is A's niece.", "niece")[1] == ("niece", True)


def test_robust_marker_is_the_last_one_with_a_label_after_it() -> None:
    robust = both("The answer is aunt, not what the answer is said to be", "aunt")[1]
    assert robust == ("aunt", True)
    assert both("The answer is aunt. No: the answer is uncle", "uncle")[1] == ("uncle", True)


def test_robust_label_glued_to_a_hyphen_is_not_that_label() -> None:
    assert both("She is his sister-in-law.", "sister") == (
        ("sister-in-law", False),
        (None, False),
    )


def test_robust_reads_the_samples_own_candidates() -> None:
    gold = "sister-in-law"
    judgement = judge(
        "kinship", "She is his sister in law.", sample(gold, (gold, "aunt")), "robust"
    )
    assert (judgement.answer, judgement.correct) == (gold, True)


def test_gold_is_compared_stripped() -> None:
    assert both("niece", " niece ") == (("niece", True), ("niece", True))
