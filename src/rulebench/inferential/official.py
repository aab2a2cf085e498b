"""Load the official RuleBench datasets from the user's local clone of the release.

`load_official(root, "clutrr")` reads `root/clutrr/test_data.json` with its rule file and returns
a TaskData; each dataset family's task (`tasks/clutrr.py`, `tasks/law/`, ...) says how
its records become Samples, this module does the rest: split and rule-file resolution, rule id
checks, stable ids (exact duplicate records are kept and numbered), demonstrations and the
in-domain tuning helper.
"""

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic

from pydantic import JsonValue

from rulebench.core.errors import ConfigError, DataError
from rulebench.core.items import ItemIds
from rulebench.core.rules import Rule, Sample, TaskData, check_rules_exist
from rulebench.inferential.official_files import (
    CORE_FIELDS,
    OfficialRecord,
    RecordT,
    file_label,
    read_records,
    read_rules,
    splits_present,
)

DEMO_COUNT = 16
DEMO_SPLITS = ("train", "validation")
"""Where demonstrations come from, in order of preference; never the evaluated split."""


class RecordError(DataError):
    """A record that validates but makes no sample (a gold outside the answer set...).

    Dataset modules raise it with the field; `build_samples` adds the file and record index.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class SampleParts:
    """What a dataset module derives from one record; the rest of the Sample is shared."""

    question: str
    gold: str
    candidates: tuple[str, ...]
    metadata: dict[str, JsonValue] = field(default_factory=dict)
    """Added to the record's extra fields (e.g. ulogic's `output` sentence)."""


@dataclass(frozen=True)
class OfficialFormat(Generic[RecordT]):
    """How one dataset's records are typed and turned into samples."""

    record_model: type[RecordT]
    to_parts: Callable[[RecordT], SampleParts]
    """Raises RecordError for a record whose gold or choices make no sense."""
    shared_rules: bool = False
    """True where all splits use one rule set (theoremQA, ulogic, law): a split whose rule file
    is missing or an empty list (law/train_rule.json) uses test_rule.json."""


def load_official(root: Path, dataset: str, split: str = "test") -> TaskData:
    """Load `split` of an official dataset from `root/<dataset>/`, with demonstrations.

    Demonstrations come from the folder's train split, else its validation split, where there
    is one (never from the split being loaded).

    Args:
        root: the release's data folder in the user's clone, <clone>/dataset (holds clutrr/,
            deer/...).
        dataset: the folder name, e.g. "clutrr-cf" or "theoremQA".
        split: "test", "train" or "validation", as the folder's file names have them.
    """
    from rulebench.inferential.registry import is_official, task_definition

    if not is_official(dataset):
        raise ConfigError(unknown_dataset_message(dataset))
    load = task_definition(dataset).load
    assert load is not None  # an official dataset's definition has a loader (tested)
    return load(root, dataset, split)


def rule_file_label(dataset: str) -> str:
    """Where an evaluated dataset's rules come from, as messages name it: "law/test_rule.json".

    Runs evaluate the test split, whose rules are in test_rule.json (demonstrations from other
    splits are mapped onto those rules); a generated task's name is returned as it is.
    """
    from rulebench.inferential.registry import is_official

    return f"{dataset}/test_rule.json" if is_official(dataset) else dataset


def unknown_dataset_message(dataset: str) -> str:
    """Name the unknown dataset, the closest known one (case-insensitively) and all of them."""
    from rulebench.inferential.registry import OFFICIAL

    by_lower = {name.lower(): name for name in OFFICIAL}
    close = difflib.get_close_matches(dataset.lower(), by_lower, n=1)
    hint = f" Did you mean '{by_lower[close[0]]}'?" if close else ""
    return f"unknown official dataset '{dataset}'.{hint} Known datasets: {', '.join(OFFICIAL)}"


def check_family(dataset: str, family: Sequence[str]) -> None:
    """A family module called with another family's dataset name is a configuration error."""
    if dataset not in family:
        known = ", ".join(family)
        raise ConfigError(f"{unknown_dataset_message(dataset)} (this loader reads: {known})")


def load_task(root: Path, dataset: str, split: str, fmt: OfficialFormat[RecordT]) -> TaskData:
    """Read one split of a dataset folder into samples, its rule set and demonstrations."""
    folder = dataset_folder(root, dataset)
    samples, rules = _load_split(root, folder, split, fmt)
    task = TaskData(name=dataset, samples=samples, rules=rules)
    demos, demo_rules = _load_demos(root, folder, split, fmt, task)
    check_rules_exist(samples, rules, file_label(root, folder))
    check_rules_exist(demos, demo_rules, f"demonstrations for {dataset}")
    return task.model_copy(update={"demos": demos, "demo_rules": demo_rules})


def dataset_folder(root: Path, dataset: str) -> Path:
    """`root/dataset`, or an error listing the dataset folders that do exist under root."""
    folder = root / dataset
    if folder.is_dir():
        return folder
    hint = (
        "pass the release's data folder, <clone>/dataset, the one with clutrr/, deer/, "
        "theoremQA/..."
    )
    if not root.is_dir():
        raise DataError(f"{root}: no such folder; {hint}")
    present = sorted(p.name for p in root.iterdir() if p.is_dir())
    holds = f"{root} holds: {', '.join(present)}" if present else f"{root} holds no folders"
    raise DataError(f"{folder}: no such folder ({holds}); {hint}")


def read_split(
    root: Path, folder: Path, split: str, fmt: OfficialFormat[RecordT]
) -> tuple[list[tuple[RecordT, dict[str, JsonValue]]], dict[str, Rule]]:
    """Validated records of one split (with their raw JSON) and the rules their ids refer to."""
    data_path = folder / f"{split}_data.json"
    data_label = file_label(root, data_path)
    if not data_path.is_file():
        present = ", ".join(splits_present(folder)) or "none"
        raise DataError(f"{data_label}: no such file (splits present: {present})")
    rules, rule_label = _resolve_rules(root, folder, split, fmt)
    records = read_records(data_path, data_label, fmt.record_model)
    for index, (record, _) in enumerate(records):
        if record.rule_id not in rules:
            raise DataError(
                f"{data_label}: record {index}: field 'rule': "
                f"id {record.rule_id} is not in {rule_label}"
            )
    return records, rules


def _resolve_rules(
    root: Path, folder: Path, split: str, fmt: OfficialFormat[RecordT]
) -> tuple[dict[str, Rule], str]:
    path = folder / f"{split}_rule.json"
    label = file_label(root, path)
    data_label = file_label(root, folder / f"{split}_data.json")
    shared = fmt.shared_rules and split != "test"
    if path.is_file():
        rules = read_rules(path, label)
        if rules is not None:
            return rules, label
        if not shared:
            raise DataError(f"{label}: an empty list, not a rule set (rule id -> {{NL, FOL}})")
        why = f"{label} is an empty list"
    elif not shared:
        raise DataError(f"{data_label} has no rule file: {label} is missing")
    else:
        why = f"{label} is missing"
    # One rule set for all splits (theoremQA, ulogic, law): fall back to the test rules.
    test_path = folder / "test_rule.json"
    test_label = file_label(root, test_path)
    test_rules = read_rules(test_path, test_label) if test_path.is_file() else None
    if test_rules is None:
        raise DataError(f"{data_label} has no rules: {why} and {test_label} has none either")
    return test_rules, test_label


def _load_split(
    root: Path, folder: Path, split: str, fmt: OfficialFormat[RecordT]
) -> tuple[tuple[Sample, ...], dict[str, Rule]]:
    records, rules = read_split(root, folder, split, fmt)
    label = file_label(root, folder / f"{split}_data.json")
    return build_samples(records, folder.name, label, fmt), rules


def build_samples(
    records: Sequence[tuple[RecordT, dict[str, JsonValue]]],
    dataset: str,
    label: str,
    fmt: OfficialFormat[RecordT],
) -> tuple[Sample, ...]:
    """Samples in file order; the id hashes the task and the raw record, duplicates numbered."""
    ids = ItemIds()
    samples = []
    for index, (record, raw) in enumerate(records):
        try:
            parts = fmt.to_parts(record)
        except RecordError as exc:
            raise DataError(f"{label}: record {index}: field '{exc.field}': {exc}") from None
        extras = {key: value for key, value in raw.items() if key not in CORE_FIELDS}
        samples.append(
            Sample(
                id=ids({"task": dataset, "record": raw}),
                task=dataset,
                question=parts.question,
                gold=parts.gold,
                golden_rule=record.rule_id,
                candidates=parts.candidates,
                counterfactual=dataset.endswith("-cf"),
                metadata=extras | parts.metadata,
            )
        )
    return tuple(samples)


def _load_demos(
    root: Path,
    folder: Path,
    split: str,
    fmt: OfficialFormat[RecordT],
    evaluated: TaskData,
) -> tuple[tuple[Sample, ...], dict[str, Rule]]:
    """Demonstrations with their own rule set: a train or validation split, else written ones.

    A demonstration shows its own rule list, so its rules need not occur in the evaluated
    rule file (clutrr's splits number and word their rules independently).
    """
    for demo_split in DEMO_SPLITS:
        if demo_split == split or not (folder / f"{demo_split}_data.json").is_file():
            continue
        pool, pool_rules = _load_split(root, folder, demo_split, fmt)
        demos = pick_demos(pool, evaluated)
        if demos:
            return demos, pool_rules
    return written_demos(folder.name, fmt, evaluated)


def written_demos(
    dataset: str, fmt: OfficialFormat[RecordT], evaluated: TaskData
) -> tuple[tuple[Sample, ...], dict[str, Rule]]:
    """The demonstrations written for a dataset without a train or validation split."""
    from rulebench.inferential.written_demos import WRITTEN

    if dataset not in WRITTEN:
        return (), {}
    raw_records, raw_rules = WRITTEN[dataset]
    label = f"rulebench's written demonstrations for {dataset}"
    records = [(fmt.record_model.model_validate(raw), raw) for raw in raw_records]
    rules = {
        key: Rule(id=key, nl=text["NL"], fol=text.get("FOL")) for key, text in raw_rules.items()
    }
    return pick_demos(build_samples(records, dataset, label, fmt), evaluated), rules


def pick_demos(pool: Sequence[Sample], evaluated: TaskData) -> tuple[Sample, ...]:
    """Up to DEMO_COUNT demonstrations spread evenly over the pool, in file order.

    A demo must not ask an evaluated question (all law test inputs occur in law train).
    """
    asked = {sample.question for sample in evaluated.samples}
    eligible = [sample for sample in pool if sample.question not in asked]
    count = min(DEMO_COUNT, len(eligible))
    return tuple(eligible[i * len(eligible) // count] for i in range(count))


def drop_test_overlap(train: TaskData, test: TaskData) -> TaskData:
    """`train` without the samples whose question text occurs in `test`.

    For in-domain tuning: every one of the 166 law test inputs also occurs in law train.
    """
    asked = {sample.question for sample in test.samples}
    kept = tuple(sample for sample in train.samples if sample.question not in asked)
    return train.model_copy(update={"samples": kept})


def instruction_metadata(record: OfficialRecord) -> dict[str, JsonValue]:
    """Keep a non-empty `instruction` the question does not show (e.g. ulogic's task line)."""
    return {"instruction": record.instruction} if record.instruction else {}
