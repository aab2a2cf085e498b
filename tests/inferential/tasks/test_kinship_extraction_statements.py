"""Stated kinship answers: corrections and conclusions win over later mentions (robust only)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebench.core.rules import Sample
from rulebench.inferential.judge import judge
from rulebench.inferential.tasks.kinship.extraction.labels import LABELS
from rulebench.inferential.tasks.kinship.extraction.statements import read_query

KIM_TO_ANN = (
    "[Ann] and her brother [Bob] went fishing. [Bob]'s daughter [Kim] came.\nWho is Kim to Ann?"
)


def both(reply: str, gold: str, question: str = "q") -> tuple[tuple[str | None, bool], ...]:
    sample = Sample(id="s", task="clutrr", question=question, gold=gold, golden_rule="1")
    judgements = (judge("clutrr", reply, sample, mode) for mode in ("paper", "robust"))
    return tuple((j.answer, j.correct) for j in judgements)


def test_the_query_names_come_from_the_question() -> None:
    assert read_query(KIM_TO_ANN, LABELS)[1:] == ("kim", "ann")
    assert read_query("q", LABELS)[1:] == (None, None)


def test_a_self_correction_replaces_the_answer_stated_before_it() -> None:
    reply = "The answer is nephew. Wait, actually it is niece."
    assert both(reply, "niece") == (("niece", True), ("niece", True))
    assert both(reply, "nephew") == (("niece", False), ("niece", False))


@pytest.mark.parametrize(
    "correction",
    [
        "Correction: niece.",
        "I mean niece.",
        "No, niece.",
        "Sorry, it's niece.",
        "Actually, she is his niece.",
        "No, wait: Kim is female, so she is Ann's niece.",
        "Wait. It's niece, since her father is Ann's brother.",
    ],
)
def test_each_correction_cue(correction: str) -> None:
    reply = f"Answer: nephew. {correction}"
    assert both(reply, "niece", KIM_TO_ANN)[1] == ("niece", True)
    assert both(reply, "niece")[1] == ("niece", True)


@pytest.mark.parametrize(
    "reply",
    [
        # A cue before any stated answer corrects nothing.
        "Actually, Bob is Kim's father. Answer: niece",
        # An explanation after "actually" states no answer.
        "Answer: niece. Actually, her mother is the sister of Bob.",
        # A later answer line wins over the correction.
        "The answer is nephew. Wait, actually it is son. Answer: niece",
    ],
)
def test_what_is_not_a_correction(reply: str) -> None:
    assert both(reply, "niece")[1] == ("niece", True)


@pytest.mark.parametrize(
    ("reply", "gold", "question", "paper"),
    [
        ("Answer: niece. Her mother is the sister of Bob.", "niece", "q", "sister"),
        (
            "So Alice is the granddaughter of Bob, because Bob's son is her father.",
            "granddaughter",
            "q",
            "father",
        ),
        ("Therefore, Kim is Ann's niece since Ann's sister is Kim's mom.", "niece", "q", "sister"),
        (
            "This means that Gus is Ann's grandfather; Ann's mother is Gus's daughter.",
            "grandfather",
            "q",
            "daughter",
        ),
        ("Kim is Ann's niece. Kim's father Bob is Ann's brother.", "niece", KIM_TO_ANN, "brother"),
        (
            "[Kim] is [Ann]'s niece, since [Bob] is [Kim]'s father and [Ann]'s brother.",
            "niece",
            KIM_TO_ANN,
            "brother",
        ),
        (
            "Kim is the niece of Ann. Her father Bob is Ann's brother; Bob's wife is her mother.",
            "niece",
            KIM_TO_ANN,
            "mother",
        ),
    ],
)
def test_the_stated_answer_wins_over_later_kin_terms(
    reply: str, gold: str, question: str, paper: str
) -> None:
    assert both(reply, gold, question) == ((paper, False), (gold, True))


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        # A statement about someone else is no answer: the last label decides, as before.
        ("Bob is Ann's brother and Kim is Bob's daughter, so Kim is Ann's niece.", ("niece", True)),
        ("Kim is the daughter of Bob. So she is Ann's niece.", ("niece", True)),
        # The converse relation stays wrong.
        ("Ann is Kim's aunt.", ("aunt", False)),
        ("Kim is not Ann's nephew.", ("nephew", False)),
    ],
)
def test_statements_must_be_about_the_query_pair(
    reply: str, expected: tuple[str | None, bool]
) -> None:
    assert both(reply, "niece", KIM_TO_ANN)[1] == expected


FINN_TO_DORA = "[Dora] and her brother [Ezra] went fishing with [Finn].\nWho is Finn to Dora?"


@pytest.mark.parametrize(
    "reply",
    [
        "Finn is Dora's brother's son, so by rule 1 he is her stepson.",
        "Finn is Dora's brother's son. By rule 1 he is her stepson.",
        "Finn is Dora's stepson, as he is her brother's son.",
    ],
)
def test_a_described_chain_does_not_override_the_counterfactual_label(reply: str) -> None:
    # The factual composition of "brother's son" (nephew) is a description, not a statement.
    sample = Sample(
        id="s", task="clutrr-cf", question=FINN_TO_DORA, gold="stepson", golden_rule="1"
    )
    judgement = judge("clutrr-cf", reply, sample, "robust")
    assert (judgement.answer, judgement.correct) == ("stepson", True)


KIN_FRAGMENTS = st.sampled_from(
    [
        " ",
        "\n",
        ".",
        ",",
        "(",
        ")",
        " - ",
        "'s ",
        "’s",
        " of ",
        "Kim",
        "[Ann]",
        " is ",
        "Answer:",
        "Wait, ",
        "actually ",
        "no, ",
        "so ",
        "because ",
        "his ",
        "the ",
        "niece",
        "aunt",
        "husband",
        "son in law",
        "great ",
    ]
)


@settings(max_examples=300)
@given(reply=st.lists(KIN_FRAGMENTS, max_size=16).map("".join), gold=st.sampled_from(LABELS))
def test_robust_reads_a_label_or_nothing_and_never_raises(reply: str, gold: str) -> None:
    sample = Sample(id="s", task="clutrr", question=KIM_TO_ANN, gold=gold, golden_rule="1")
    judgement = judge("clutrr", reply, sample, "robust")
    assert judgement.answer is None or judgement.answer in LABELS
    assert judgement.correct == (judgement.answer == gold)
