"""Relation chains (`Michael's aunt's husband`): paper reads one link, robust the whole chain."""

import pytest

from rulebench.core.rules import Sample
from rulebench.inferential.judge import judge
from rulebench.inferential.tasks.kinship.extraction.chains import UNLISTED, compose_relation_chains


def both(reply: str, gold: str, question: str = "q") -> tuple[tuple[str | None, bool], ...]:
    sample = Sample(id="s", task="clutrr", question=question, gold=gold, golden_rule="1")
    judgements = (judge("clutrr", reply, sample, mode) for mode in ("paper", "robust"))
    return tuple((j.answer, j.correct) for j in judgements)


@pytest.mark.parametrize("gold", ["aunt", "uncle"])
def test_aunts_husband_is_no_aunt_and_no_uncle(gold: str) -> None:
    # Our tree counts blood uncles only, and CLUTRR's composition facts have no aunt row.
    assert both("Clarence is Michael's aunt's husband", gold) == (("husband", False), (None, False))


def test_curly_apostrophes_make_the_same_chain() -> None:
    assert both("Clarence is Michael’s aunt’s husband.", "aunt")[1] == (None, False)


def test_a_chain_that_is_no_label_as_the_last_mention_has_no_answer() -> None:
    reply = "Michael's aunt is Dora, and Clarence is Michael's aunt's husband."
    question = "Dora married Clarence.\nWho is Clarence to Michael?"
    assert both(reply, "aunt", question) == (("aunt", True), (None, False))


@pytest.mark.parametrize(
    ("reply", "gold", "paper"),
    [
        ("Kim is Ann's brother's daughter.", "niece", "daughter"),
        ("Kim is the daughter of Ann's brother.", "niece", "brother"),
        ("Gus is Ann's mother's father", "grandfather", "father"),
        ("Eve is the wife of Ann's son.", "daughter-in-law", "son"),
    ],
)
def test_a_chain_the_composition_facts_reduce_reads_as_their_label(
    reply: str, gold: str, paper: str
) -> None:
    assert both(reply, gold) == ((paper, False), (gold, True))


def test_a_chain_through_a_non_kinship_link_is_unlisted() -> None:
    assert both("Kim is Ann's aunt's friend", "aunt") == (("friend", False), (None, False))


@pytest.mark.parametrize(
    "reply",
    [
        "Clarence is Michael's uncle.",
        "Michael's aunt is Dora, and her husband Clarence is Michael's uncle.",
        "Answer: uncle. Clarence is Michael's aunt's husband.",
    ],
)
def test_a_possessive_name_or_a_stated_label_is_still_read(reply: str) -> None:
    assert both(reply, "uncle")[1] == ("uncle", True)


@pytest.mark.parametrize(
    ("text", "rewritten"),
    [
        ("ann's sister's son", "ann's {nephew}"),
        ("the son of her sister", "the {nephew} of her"),
        ("the son of the sister of ann", "the {nephew} of ann"),
        ("the son of ann's sister's husband", "the {nephew} of ann"),  # spouse's son is own son
        ("the son of ann's aunt's husband", f"the {{{UNLISTED}}} of ann"),
        ("michael's aunt's husband", f"michael's {{{UNLISTED}}}"),
        ("son's " * 8 + "son", f"{{{UNLISTED}}}"),
        ("kim's father is ann's brother", "kim's father is ann's brother"),
    ],
)
def test_compose_relation_chains(text: str, rewritten: str) -> None:
    assert compose_relation_chains(text) == rewritten


def test_an_answer_line_holding_a_chain_reads_as_the_chain() -> None:
    assert both("Answer: Kim is Ann's brother's daughter.", "niece")[1] == ("niece", True)
    assert both("Answer: Michael's aunt's husband. Michael's aunt is Dora.", "aunt")[1] == (
        None,
        False,
    )
