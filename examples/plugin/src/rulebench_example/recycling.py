"""Recycling: which bin does a described item go in? An official-format rule dataset.

The data ships with the package (`data/recycling/test_data.json` and `test_rule.json`, laid
out like the RuleBench release's folders), so the task runs without --data-root.
"""

import re
from pathlib import Path

from rulebench.core.rules import Sample, TaskData
from rulebench.inferential.definition import TaskDefinition, sample_judges
from rulebench.inferential.extraction import Judgement
from rulebench.inferential.official import OfficialFormat, SampleParts, load_task
from rulebench.inferential.official_files import IntRuleRecord
from rulebench.inferential.template import PromptTemplate

BINS = ("paper", "glass", "metal", "compost")
DATA = Path(__file__).parent / "data"


def to_parts(record: IntRuleRecord) -> SampleParts:
    """The item as described; the gold is a bin name."""
    return SampleParts(question=record.input, gold=record.output.strip(), candidates=BINS)


def load(root: Path, dataset: str, split: str) -> TaskData:
    """One split of root/recycling/ (the package's own copy: `data_root` below)."""
    return load_task(root, dataset, split, OfficialFormat(IntRuleRecord, to_parts))


def last_bin_named(reply: str, sample: Sample) -> Judgement:
    """The last bin the reply names is its answer (both modes: the format is plain)."""
    named = [word for word in re.findall(r"[a-z]+", reply.lower()) if word in BINS]
    answer = named[-1] if named else None
    return Judgement(answer=answer, correct=answer == sample.gold)


RECYCLING = TaskDefinition(
    name="recycling",
    summary="Recycling: which bin takes a described item? (4 bins; example plugin)",
    template=PromptTemplate(
        task_line="Decide which bin the item described goes in, using the rules below.",
        answer_line='End with "Bin: <bin>", one of ' + ", ".join(BINS) + ".",
        write_answer=lambda gold: f"Bin: {gold}",
    ),
    judges=sample_judges(last_bin_named, last_bin_named, ("last_bin_named",)),
    load=load,
    answers=BINS,
    rule_counts=(2, 4),
    paper_shots=1,
    data_root=DATA,
)
