"""DEER questions from the official release: 4-option multiple choice about natural facts.

A record's input is a question followed by options "A. ..." to "D. ..."; its output is the
gold letter in lowercase. This module holds the whole task: loader, prompt template and the
reading of an option letter (a-d) out of a reply.
"""

from pathlib import Path

from rulebench.core.rules import TaskData
from rulebench.inferential.definition import TaskDefinition
from rulebench.inferential.official import (
    OfficialFormat,
    RecordError,
    SampleParts,
    check_family,
    instruction_metadata,
    load_task,
)
from rulebench.inferential.official_files import IntRuleRecord
from rulebench.inferential.option_letters import (
    bare_letter_reply,
    last_letter_after_answer_marker,
    letter_judges,
    option_letter_token,
)
from rulebench.inferential.template import PromptTemplate
from rulebench.inferential.vocabulary import OPTION_LETTERS

DATASETS = ("deer",)
LETTERS = OPTION_LETTERS


def load(root: Path, dataset: str = "deer", split: str = "test") -> TaskData:
    """Load deer (the release has a test split only) from `root/deer/`."""
    check_family(dataset, DATASETS)
    return load_task(root, dataset, split, OfficialFormat(IntRuleRecord, to_parts))


def to_parts(record: IntRuleRecord) -> SampleParts:
    """The question with its options as released; gold is the letter, lowercased."""
    gold = record.output.strip().lower()
    if gold not in LETTERS:
        raise RecordError("output", f"'{record.output}' is not an option letter a-d")
    return SampleParts(
        question=record.input,
        gold=gold,
        candidates=LETTERS,
        metadata=instruction_metadata(record),
    )


TEMPLATE = PromptTemplate(
    task_line="Answer the multiple-choice question using the rules below.",
    answer_line='End with "The answer is X." where X is A, B, C or D.',
    write_answer=lambda gold: f"The answer is {gold.upper()}.",
)

PAPER_OPTIONS: tuple[str, ...] = ("A.", "B.", "C.", "D.", "A)", "B)", "C)", "D)")
"""What the released scorer looks for inside a token, in this order, uppercase only."""

_PAPER_ANSWER = " answer "


def paper_answer(reply: str) -> str | None:
    """The released reading: the first token after the last ` answer ` holding `A.`..`D)`.

    Quirks kept: ` answer ` is lowercase with a space on each side (`Answer: B` is missed, and the
    whole reply is searched then); tokens split on single spaces; only uppercase `B.`/`B)` count,
    anywhere inside a token (`U.S.A.` reads as a), so `b`, `(b)` and a bare `B` are missed.
    """
    start = reply.rfind(_PAPER_ANSWER)
    tail = reply[start + len(_PAPER_ANSWER) :] if start >= 0 else reply
    for token in tail.split(" "):
        for option in PAPER_OPTIONS:
            if option in token:
                return option[0].lower()
    return None


ROBUST_STEPS = (bare_letter_reply, last_letter_after_answer_marker, option_letter_token)
"""The robust reading: each step in turn, the first letter found counts."""


DEER = TaskDefinition(
    name="deer",
    summary="DEER: four-option questions about natural facts, answered by a rule",
    template=TEMPLATE,
    judges=letter_judges(paper_answer, ROBUST_STEPS),
    load=load,
    answers=LETTERS,
)
