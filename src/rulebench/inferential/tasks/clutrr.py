"""CLUTRR kinship questions from the official release: the `clutrr` and `clutrr-cf` folders.

A record's input is a short story followed by "Who is X to Y?"; its output is a kinship label.
The question has the shape of our generated kinship task's, so the prompt template and the
reading of replies are kinship's (`tasks/kinship/template.py`, `tasks/kinship/extraction/`).
"""

from dataclasses import replace
from functools import partial
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
from rulebench.inferential.tasks.kinship.extraction.labels import JUDGES
from rulebench.inferential.tasks.kinship.template import TEMPLATE
from rulebench.inferential.vocabulary import KINSHIP_CF_LABELS, KINSHIP_LABELS

DATASETS = ("clutrr", "clutrr-cf")

LABELS = KINSHIP_LABELS
CF_LABELS = KINSHIP_CF_LABELS


def load(root: Path, dataset: str = "clutrr", split: str = "test") -> TaskData:
    """Load clutrr or clutrr-cf (splits: test, validation, train) from `root/<dataset>/`."""
    check_family(dataset, DATASETS)
    labels = CF_LABELS if dataset == "clutrr-cf" else LABELS
    fmt = OfficialFormat(IntRuleRecord, partial(to_parts, labels=labels))
    return load_task(root, dataset, split, fmt)


def to_parts(record: IntRuleRecord, labels: tuple[str, ...]) -> SampleParts:
    """The story and query as asked; the gold label must be one of the dataset's labels."""
    gold = record.output.strip()
    if gold not in labels:
        raise RecordError("output", f"'{gold}' is not one of the {len(labels)} kinship labels")
    return SampleParts(
        question=record.input,
        gold=gold,
        candidates=labels,
        metadata=instruction_metadata(record),
    )


CLUTRR = TaskDefinition(
    name="clutrr",
    summary="CLUTRR family stories: how are two people related? (18 labels)",
    template=TEMPLATE,
    judges=JUDGES,
    load=load,
    answers=LABELS,
)
CLUTRR_CF = replace(
    CLUTRR,
    name="clutrr-cf",
    summary="CLUTRR with counterfactual kinship rules (20 labels)",
    answers=CF_LABELS,
)
