r"""ULogic questions from the official release: the `ulogic` and `ulogic-cf` folders.

A record's input is "Context:\n...\nQuestion:\n..."; the gold for scoring is `positive_`
(true/false), not `output` (a sentence in ulogic, "True"/"False" in ulogic-cf) and not
`positive`, which differs from `positive_` on some records. ulogic-cf's rule files have NL only
and repeat every key in their text (read with a warning); some of its counterfactual rules equal
the factual ones while the gold is flipped: that is the released data, kept as it is.
"""

from pathlib import Path

from rulebench.core.rules import TaskData
from rulebench.inferential.tasks.official import (
    OfficialFormat,
    SampleParts,
    check_family,
    instruction_metadata,
    load_task,
)
from rulebench.inferential.tasks.official_files import StrRuleRecord

DATASETS = ("ulogic", "ulogic-cf")

ANSWERS = (
    "True",
    "False",
    "CannotJudge",
    "NotSure",
    "CannotEntail",
    "LackOfEvidence",
    "NeedMoreInfo",
)
"""The answers a ulogic prompt offers: true, false and abstentions, which always score wrong.

The gold is lowercase ("true"/"false", as the paper's scorer compares it), so compare it with
these case-insensitively."""


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
