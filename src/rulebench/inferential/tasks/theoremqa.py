r"""TheoremQA questions from the official release, turned into lettered choices.

A record's input ends with a choice line, e.g. "Choices:\na 0.0. b 546.0. c -273.0. d 273.0";
true/false items have three options only ("a False. b True. c Unknown", in varying order). Its
output is the gold letter; `Answer` keeps the original answer (a JSON float, int, bool or str).
This module holds the whole task: loader, prompt template and the reading of a choice letter.
The release separates options in more than one way: ". b " mostly, "; b " and ", b " in some
multiple-choice ("option") items, with or without trailing text ("... Which option is
correct?"), and two options only in a few of them.
"""

import re
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, JsonValue

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
from rulebench.inferential.official_files import StrRuleRecord
from rulebench.inferential.option_letters import (
    bare_letter_reply,
    first_letter_after_answer_marker,
    letter_judges,
)
from rulebench.inferential.template import PromptTemplate
from rulebench.inferential.vocabulary import OPTION_LETTERS

DATASETS = ("theoremQA",)
CHOICES_MARK = "Choices:"
LETTERS = OPTION_LETTERS
"""Option letters in the order a choice line must give them."""
MIN_OPTIONS = 2

_FIRST_OPTION = re.compile(r"(\(?)a([.):]?)\s")
"""The first option's marker: "a ", or a marked one such as "a. ", "a) ", "(a) ", "a: "."""
_SEPARATORS = "'. b ', '; b ', ', b ', a new line, or a marked option such as '(b)', 'b)', 'b.'"


def _scalar(value: JsonValue) -> JsonValue:
    if value is None or isinstance(value, list | dict):
        raise ValueError("should be a number, a boolean or a string")
    return value


class TheoremQARecord(StrRuleRecord):
    """A theoremQA record: the core fields plus the original answer and its subject."""

    Answer: Annotated[JsonValue, AfterValidator(_scalar)]
    Answer_type: str
    field: str
    subfield: str


def load(root: Path, dataset: str = "theoremQA", split: str = "test") -> TaskData:
    """Load theoremQA (splits: test, train; both use one rule set) from `root/theoremQA/`."""
    check_family(dataset, DATASETS)
    fmt = OfficialFormat(TheoremQARecord, to_parts, shared_rules=True)
    return load_task(root, dataset, split, fmt)


def to_parts(record: TheoremQARecord) -> SampleParts:
    """The question with its choice line; candidates are the letters that line offers.

    A choice line whose options cannot be told apart is an error, not a shorter answer set:
    a record read as offering "a" alone would make any scorer count every reply as right.
    """
    letters = choice_letters(record.input)
    if letters is None:
        raise RecordError(
            "input", f"no choice line ('{CHOICES_MARK}' then 'a ...', 'b ...') at the end"
        )
    if len(letters) < MIN_OPTIONS:
        raise RecordError(
            "input",
            f"cannot split the choice line into options: no option 'b' follows option 'a' "
            f"(separators understood: {_SEPARATORS}): {_choice_line(record.input)[:80]!r}",
        )
    gold = record.output.strip()
    if gold not in letters:
        raise RecordError("output", f"'{record.output}' is not one of the choices {letters}")
    return SampleParts(
        question=record.input,
        gold=gold,
        candidates=letters,
        metadata=instruction_metadata(record),
    )


def _choice_line(question: str) -> str:
    return question[question.rfind(CHOICES_MARK) + len(CHOICES_MARK) :].lstrip()


def choice_letters(question: str) -> tuple[str, ...] | None:
    """Letters of the last choice line, in order: ("a", "b"), ("a", "b", "c") or up to "d".

    The line must open with option a; each next letter counts where its marker follows a
    separator, searched after the previous option so the letters come in order. Bare markers
    ("b ") need ". ", "; ", ", " or a new line before them, as the release writes them; marked
    ones ("(b) ", "b) ", "b. ") need only a space. ("a",) when no option b can be found; None
    when the question has no choice line.
    """
    if CHOICES_MARK not in question:
        return None
    line = _choice_line(question)
    first = _FIRST_OPTION.match(line)
    if first is None:
        return None
    opener, closer = first.groups()
    separator = r"[.;,]?\s+" if opener or closer else r"(?:[.;,]\s+|\s*\n\s*)"
    letters = ["a"]
    position = first.end()
    for letter in LETTERS[1:]:
        marker = re.compile(separator + re.escape(f"{opener}{letter}{closer}") + r"\s")
        found = marker.search(line, position)
        if found is None:
            break
        letters.append(letter)
        position = found.end()
    return tuple(letters)


TEMPLATE = PromptTemplate(
    task_line="Answer the question using the theorems stated as rules below.",
    answer_line='Reply in the format "Answer: x." where x is the letter of the option you choose.',
    write_answer=lambda gold: f"Answer: {gold}.",
)

_PAPER = re.compile(r"Answer: ([abcd])")


def paper_answer(reply: str) -> str | None:
    """The released reading: the first match of `Answer: ([abcd])`.

    Quirks kept: case-sensitive (`answer: b` and `Answer: B` are missed), exactly one space, no
    markup (`**Answer:** b` is missed), and the letter may start a word (`Answer: because`
    reads as b).
    """
    found = _PAPER.search(reply)
    return found.group(1) if found else None


ROBUST_STEPS = (first_letter_after_answer_marker, bare_letter_reply)
"""The robust reading: each step in turn, the first letter found counts."""


THEOREMQA = TaskDefinition(
    name="theoremQA",
    summary="TheoremQA: maths and science questions as lettered choices, solved by a theorem",
    template=TEMPLATE,
    judges=letter_judges(paper_answer, ROBUST_STEPS),
    load=load,
    answers=LETTERS,
    rule_counts=(3, 5),
    paper_shots=1,
)
