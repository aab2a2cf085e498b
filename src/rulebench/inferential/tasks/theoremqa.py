r"""TheoremQA questions from the official release, turned into lettered choices.

A record's input ends with a choice line, e.g. "Choices:\na 0.0. b 546.0. c -273.0. d 273.0";
true/false items have three options only ("a False. b True. c Unknown", in varying order). Its
output is the gold letter; `Answer` keeps the original answer (a JSON float, int, bool or str).
"""

from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, JsonValue

from rulebench.core.rules import TaskData
from rulebench.inferential.tasks.official import (
    OfficialFormat,
    RecordError,
    SampleParts,
    check_family,
    instruction_metadata,
    load_task,
)
from rulebench.inferential.tasks.official_files import StrRuleRecord

DATASETS = ("theoremQA",)
CHOICES_MARK = "Choices:"


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
    """The question with its choice line; candidates are the letters that line offers."""
    letters = choice_letters(record.input)
    if letters is None:
        raise RecordError(
            "input", f"no choice line ('{CHOICES_MARK}' then 'a ...', 'b ...') at the end"
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


def choice_letters(question: str) -> tuple[str, ...] | None:
    """Letters of the last choice line, in order: ("a", "b", "c") or ("a", "b", "c", "d").

    Options are written "a <text>. b <text>. c <text>", so a letter counts when ". <letter> "
    follows the previous one; None when the question has no choice line.
    """
    start = question.rfind(CHOICES_MARK)
    if start < 0:
        return None
    line = question[start + len(CHOICES_MARK) :].lstrip()
    if not line.startswith("a "):
        return None
    letters = ["a"]
    position = 0
    for letter in "bcd":
        found = line.find(f". {letter} ", position)
        if found < 0:
            break
        letters.append(letter)
        position = found + 3
    return tuple(letters)
