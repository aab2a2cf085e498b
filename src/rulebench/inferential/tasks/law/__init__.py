"""CAIL2018 criminal-law questions from the official release: the `law` and `law-cf` folders.

A record's input is a case description and its output a charge name with a leading space.
law: the record's `instruction` lists all charges and is not shown; the candidates are the gold
and the two charges most like it, ranked as upstream ranks them (see `rank_distractors`).
law-cf: the question is `instruction` + input (its instruction asks which listed charge
applies). Rules are keyed by Criminal Law article number; law/train_rule.json is an empty list,
so law train records use test_rule.json, and law-cf's FOL rules are the factual ones (only its
NL is counterfactual).

The package holds the whole task: this loader and the two definitions, `template` (the
prompts) and `extraction` (reading a charge out of a reply).
"""

import ast
from collections.abc import Sequence
from fractions import Fraction
from functools import partial
from pathlib import Path

from rulebench.core.errors import DataError
from rulebench.core.rules import TaskData
from rulebench.inferential.definition import TaskDefinition
from rulebench.inferential.official import (
    OfficialFormat,
    SampleParts,
    check_family,
    dataset_folder,
    load_task,
)
from rulebench.inferential.official_files import (
    StrRuleRecord,
    file_label,
    read_records,
    splits_present,
)
from rulebench.inferential.tasks.law.extraction import CF_JUDGES, JUDGES
from rulebench.inferential.tasks.law.template import CF_TEMPLATE, TEMPLATE

DATASETS = ("law", "law-cf")
CHARGE_SPLITS = ("train", "test")
NEIGHBOURS = 2
"""Charges shown besides the gold (3 candidates in all, as upstream)."""


def load(root: Path, dataset: str = "law", split: str = "test") -> TaskData:
    """Load law (splits: test, train) or law-cf (test) from `root/<dataset>/`."""
    check_family(dataset, DATASETS)
    if dataset == "law":
        to_parts = partial(law_parts, charges=charge_list(root))
        return load_task(root, dataset, split, OfficialFormat(StrRuleRecord, to_parts, True))
    return load_task(root, dataset, split, OfficialFormat(StrRuleRecord, cf_parts, True))


def charge_list(root: Path) -> tuple[str, ...]:
    """Every law gold charge in the user's law train and test files, longest name first.

    The paper's scorer walks a fixed list of 136 charges, the set of law gold labels; we derive
    the same set from the files present rather than ship a copy. Ties in length go by text.
    """
    folder = dataset_folder(root, "law")
    charges: set[str] = set()
    for split in CHARGE_SPLITS:
        path = folder / f"{split}_data.json"
        if path.is_file():
            records = read_records(path, file_label(root, path), StrRuleRecord)
            charges.update(record.output.strip() for record, _ in records)
    if not charges:
        present = ", ".join(splits_present(folder)) or "none"
        raise DataError(
            f"{file_label(root, folder)}: no train_data.json or test_data.json to take the "
            f"charge list from (splits present: {present})"
        )
    return tuple(sorted(charges, key=lambda charge: (-len(charge), charge)))


def similarity(gold: str, candidate: str) -> Fraction:
    """Upstream's closeness of a charge to the gold: shared characters / the candidate's own.

    Both counts are of distinct characters (、 included, as in the names), so a short charge
    can outrank a long one that shares more: for gold 受贿, 行贿 (1 of 2) beats 利用影响力受贿
    (2 of 7). A Fraction keeps equal scores exactly equal for the tie-break.
    """
    letters = set(candidate)
    return Fraction(len(letters & set(gold)), len(letters))


def rank_distractors(gold: str, charges: Sequence[str], count: int = NEIGHBOURS) -> list[str]:
    """The `count` charges other than `gold` most similar to it; ties keep the order of `charges`.

    Pass the charges in the release's order (a law record's instruction lists them so): that
    order decides ties as upstream's did, e.g. the paper's example shows 串通投标 with
    破坏交通设施 and 假冒注册商标, not the equally close 破坏交通工具 listed after them.
    """
    others = [charge for charge in dict.fromkeys(charges) if charge != gold]
    return sorted(others, key=lambda charge: similarity(gold, charge), reverse=True)[:count]


def law_parts(record: StrRuleRecord, charges: tuple[str, ...]) -> SampleParts:
    """The case only (not the all-charges instruction); gold first among three candidates.

    Distractors are ranked over the record's own charge list when it names the gold (the
    release's order, which decides ties as upstream), else over every gold charge in the files.
    """
    gold = record.output.strip()
    listed = listed_charges(record.instruction)
    pool = listed if gold in listed else charges
    return SampleParts(
        question=record.input,
        gold=gold,
        candidates=(gold, *rank_distractors(gold, pool)),
    )


def cf_parts(record: StrRuleRecord) -> SampleParts:
    """Instruction (with its charge list) then the case; candidates are the listed charges."""
    gold = record.output.strip()
    listed = listed_charges(record.instruction)
    return SampleParts(
        question=f"{record.instruction}\n{record.input}",
        gold=gold,
        candidates=listed if gold in listed else (),
    )


def listed_charges(instruction: str) -> tuple[str, ...]:
    """The Python-style list "['保险诈骗', ...]" inside a law instruction; () if there is none."""
    start, end = instruction.find("["), instruction.rfind("]")
    if start < 0 or end < start:
        return ()
    try:
        value = ast.literal_eval(instruction[start : end + 1])
    except (ValueError, SyntaxError):
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return ()
    return tuple(value)


# The paper says 30 rules for "all"; the released code lists 20.
LAW = TaskDefinition(
    name="law",
    summary="CAIL2018 criminal law (Chinese): which charge fits the case?",
    template=TEMPLATE,
    judges=JUDGES,
    load=load,
    rule_counts=(4, 20),
    judging_context=charge_list,
)
LAW_CF = TaskDefinition(
    name="law-cf",
    summary="CAIL2018 with counterfactual law articles; answers as JSON",
    template=CF_TEMPLATE,
    judges=CF_JUDGES,
    load=load,
    rule_counts=(4, 20),
)
