"""Explanations after a kinship label: paper reads their kin terms, robust keeps the label."""

import pytest

from rulebench.core.rules import Sample
from rulebench.inferential.judge import judge
from rulebench.inferential.tasks.kinship.extraction.asides import drop_explanations_after_labels


def both(reply: str, gold: str, task: str = "clutrr") -> tuple[tuple[str | None, bool], ...]:
    sample = Sample(id="s", task=task, question="q", gold=gold, golden_rule="1")
    judgements = (judge(task, reply, sample, mode) for mode in ("paper", "robust"))
    return tuple((j.answer, j.correct) for j in judgements)


@pytest.mark.parametrize("task", ["kinship", "clutrr", "clutrr-cf"])
def test_a_parenthesis_explaining_the_label_does_not_override_it(task: str) -> None:
    # Paper mode is right here only because "son)" keeps its bracket and is no candidate.
    assert both("nephew (his sister's son)", "nephew", task) == (
        ("nephew", True),
        ("nephew", True),
    )
    assert both("nephew (his mother is my sister)", "nephew", task) == (
        ("mother", False),
        ("nephew", True),
    )


@pytest.mark.parametrize(
    "reply",
    [
        "Finn is Dora's nephew - his father is her brother.",
        "Finn is Dora's nephew — his father is her brother.",
        "Finn is Dora's nephew, because his father Ezra is her brother.",
        "Finn is Dora's nephew, his father being her brother.",
        "Finn is Dora's nephew. This is because his father is her brother.",
    ],
)
def test_an_explanation_after_a_dash_or_comma_does_not_override_the_label(reply: str) -> None:
    assert both(reply, "nephew") == (("brother", False), ("nephew", True))


@pytest.mark.parametrize(
    ("reply", "gold"),
    [
        ("The relation is (aunt)", "aunt"),
        ("nephew (wait, niece)", "niece"),
        ("Bob is Kim's father, since Bob is Ann's brother, Kim is Ann's niece", "niece"),
        ("Bob is Kim's father - so Kim is Ann's niece", "niece"),
        ("Bob is Kim's father because the story says so, and Kim is Ann's niece.", "niece"),
    ],
)
def test_what_is_not_an_aside_is_kept(reply: str, gold: str) -> None:
    assert both(reply, gold)[1] == (gold, True)


def test_drop_explanations_after_labels() -> None:
    assert drop_explanations_after_labels("aunt (her mother's sister). ok") == "aunt . ok"
    assert drop_explanations_after_labels("(a note) aunt") == "(a note) aunt"
    assert drop_explanations_after_labels("no kin here (sister)") == "no kin here (sister)"
