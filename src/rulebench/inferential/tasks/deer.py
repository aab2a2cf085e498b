"""DEER questions from the official release: 4-option multiple choice about natural facts.

A record's input is a question followed by options "A. ..." to "D. ..."; its output is the
gold letter in lowercase.
"""

from pathlib import Path

from rulebench.core.rules import TaskData
from rulebench.inferential.definition import TaskDefinition
from rulebench.inferential.extraction.deer import JUDGES
from rulebench.inferential.tasks.official import (
    OfficialFormat,
    RecordError,
    SampleParts,
    check_family,
    instruction_metadata,
    load_task,
)
from rulebench.inferential.tasks.official_files import IntRuleRecord
from rulebench.inferential.templates.deer import TEMPLATE
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


DEER = TaskDefinition(
    name="deer",
    summary="DEER: four-option questions about natural facts, answered by a rule",
    template=TEMPLATE,
    judges=JUDGES,
    load=load,
    answers=LETTERS,
)
