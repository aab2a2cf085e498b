r"""ULogic questions from the official release: the `ulogic` and `ulogic-cf` folders.

A record's input is "Context:\n...\nQuestion:\n..."; the gold for scoring is `positive_`
(true/false), not `output` (a sentence in ulogic, "True"/"False" in ulogic-cf) and not
`positive`, which differs from `positive_` on some records. ulogic-cf's rule files have NL only
and repeat every key in their text (read with a warning); some of its counterfactual rules equal
the factual ones while the gold is flipped: that is the released data, kept as it is.
"""

from dataclasses import replace
from pathlib import Path

from rulebench.core.rules import TaskData
from rulebench.inferential.definition import TaskDefinition
from rulebench.inferential.extraction.ulogic import JUDGES
from rulebench.inferential.tasks.official import (
    OfficialFormat,
    SampleParts,
    check_family,
    instruction_metadata,
    load_task,
)
from rulebench.inferential.tasks.official_files import StrRuleRecord
from rulebench.inferential.templates.ulogic import TEMPLATE
from rulebench.inferential.vocabulary import ULOGIC_ANSWERS

DATASETS = ("ulogic", "ulogic-cf")

ANSWERS = ULOGIC_ANSWERS


class UlogicRecord(StrRuleRecord):
    """A ulogic record: the core fields plus `positive_`, the gold (others kept as extras)."""

    positive_: bool


def load(root: Path, dataset: str = "ulogic", split: str = "test") -> TaskData:
    """Load ulogic or ulogic-cf (splits: test, train; one rule set) from `root/<dataset>/`."""
    check_family(dataset, DATASETS)
    fmt = OfficialFormat(UlogicRecord, to_parts, shared_rules=True)
    return load_task(root, dataset, split, fmt)


def to_parts(record: UlogicRecord) -> SampleParts:
    """Context and question as released; gold "true"/"false" from `positive_`."""
    return SampleParts(
        question=record.input,
        gold="true" if record.positive_ else "false",
        candidates=ANSWERS,
        metadata={"output": record.output, **instruction_metadata(record)},
    )


ULOGIC = TaskDefinition(
    name="ulogic",
    summary="ULogic: is a conclusion true given the facts and rules? (true/false)",
    template=TEMPLATE,
    judges=JUDGES,
    load=load,
    answers=ANSWERS,
    paper_shots=1,
)
ULOGIC_CF = replace(ULOGIC, name="ulogic-cf", summary="ULogic with counterfactual rules")
