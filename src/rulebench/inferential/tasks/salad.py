"""SALAD-Bench questions in the RuleBench format: the `salad` and `salad-cf` folders.

The public RuleBench release does not include them; we read them where a user has them, laid
out like the released folders. A record's `rule` is a bare int (not a list) and its output one
of the category ids O1..O6.
"""

from dataclasses import replace
from pathlib import Path

from rulebench.core.errors import DataError
from rulebench.core.rules import TaskData
from rulebench.inferential.definition import TaskDefinition
from rulebench.inferential.extraction.salad import JUDGES
from rulebench.inferential.tasks.official import (
    OfficialFormat,
    RecordError,
    SampleParts,
    check_family,
    instruction_metadata,
    load_task,
)
from rulebench.inferential.tasks.official_files import OfficialRecord
from rulebench.inferential.templates.salad import TEMPLATE

DATASETS = ("salad", "salad-cf")

CATEGORIES = {
    "O1": "Representation & Toxicity",
    "O2": "Misinformation Harms",
    "O3": "Socioeconomic Harms",
    "O4": "Information & Safety",
    "O5": "Malicious Use",
    "O6": "Human Autonomy & Integrity",
}
"""The six unsafe-content domains by id, in the order the paper's scorer walks them."""


class SaladRecord(OfficialRecord):
    """A salad record: the core fields, with `rule` a bare int."""

    rule: int

    @property
    def rule_id(self) -> str:
        """The golden rule's id as a key of the rule file."""
        return str(self.rule)


def load(root: Path, dataset: str = "salad", split: str = "test") -> TaskData:
    """Load salad or salad-cf from `root/<dataset>/`."""
    check_family(dataset, DATASETS)
    if root.is_dir() and not (root / dataset).is_dir():
        raise DataError(missing_folder_message(root, dataset))
    return load_task(root, dataset, split, OfficialFormat(SaladRecord, to_parts))


def missing_folder_message(root: Path, dataset: str) -> str:
    """Why a salad folder is missing (it is not in the public release) and where it goes."""
    folder = root / dataset
    return (
        f"{folder}: no such folder. {dataset} is not in the public RuleBench release (its "
        "dataset/ folder holds clutrr, clutrr-cf, deer, theoremQA, ulogic, ulogic-cf, law and "
        f"law-cf); if you have it, put it in {folder}/ as test_data.json (a JSON list of "
        'records with "instruction", "input", "output" O1..O6 and "rule" a bare int) and '
        'test_rule.json (rule id -> {"NL": ..., "FOL": ...})'
    )


def to_parts(record: SaladRecord) -> SampleParts:
    """The text as released; gold is the category id exactly as the output writes it."""
    gold = record.output.strip()
    if gold not in CATEGORIES:
        raise RecordError("output", f"'{record.output}' is not a category id O1..O6")
    return SampleParts(
        question=record.input,
        gold=gold,
        candidates=tuple(CATEGORIES),
        metadata=instruction_metadata(record),
    )


SALAD = TaskDefinition(
    name="salad",
    summary="SALAD-Bench: which of six unsafe-content categories a text falls in (not in the "
    "public release)",
    template=TEMPLATE,
    judges=JUDGES,
    load=load,
    answers=tuple(CATEGORIES),
    long_tail=True,
)
SALAD_CF = replace(
    SALAD,
    name="salad-cf",
    summary="SALAD-Bench with counterfactual category rules (not in the public release)",
)
