"""Differences between cells that ask the same questions: CoT vs direct, counterfactual vs factual.

Where both cells hold answers to the same questions (a generated task's factual and
counterfactual twins, or its CoT and direct items: same task, same sample id) the difference
is taken over the matched items with a paired interval. Otherwise (the official `*-cf` sets
are separate datasets of other sizes) it compares the two groups as independent, and says so.
"""

from collections import defaultdict
from collections.abc import Sequence
from typing import NamedTuple

from rulebench.core.stats import Proportion
from rulebench.inferential.analysis import Cell, Record, accuracy, cell_of
from rulebench.inferential.differences import Delta, difference, paired_difference


def family(task: str) -> str:
    """The factual task a task belongs with: `clutrr-cf` -> `clutrr`; `kinship` -> `kinship`."""
    return task.removesuffix("-cf")


def match_items(first: Sequence[Record], second: Sequence[Record]) -> list[tuple[bool, bool]]:
    """(first right, second right) for each question both sides answered, refusals left out.

    A question is a task and a sample id; records without a sample id never pair. When a
    question occurs several times on a side (repeats, duplicate records), the n-th occurrence
    pairs with the n-th.
    """
    seen: dict[tuple[str, str], list[bool | None]] = defaultdict(list)
    for record in second:
        if record.sample_id:
            seen[(record.task, record.sample_id)].append(record.correct)
    taken: dict[tuple[str, str], int] = defaultdict(int)
    pairs = []
    for record in first:
        key = (record.task, record.sample_id)
        if not record.sample_id or taken[key] >= len(seen.get(key, ())):
            continue
        other = seen[key][taken[key]]
        taken[key] += 1
        if record.correct is not None and other is not None:
            pairs.append((record.correct, other))
    return pairs


def compare(first: Sequence[Record], second: Sequence[Record]) -> Delta | None:
    """First minus second accuracy: paired over matched questions where there are any.

    With `--repeats` a question's repeats are not independent pairs (they would narrow the
    interval with no new question), so the per-sample accuracies (n = samples, as every
    accuracy is reported) are compared as independent groups: a wider, conservative interval.
    """
    if any(record.repeat for record in (*first, *second)):
        return difference(accuracy(first), accuracy(second))
    pairs = match_items(first, second)
    if pairs:
        return paired_difference(pairs)
    return difference(accuracy(first), accuracy(second))


def cot_deltas(records: Sequence[Record]) -> dict[Cell, Delta]:
    """Per CoT cell: its accuracy minus that of the same cell answered directly."""
    cells = _by_cell(records)
    deltas = {}
    for cell, members in cells.items():
        direct = cells.get(cell._replace(cot=False))
        if cell.cot and direct and (delta := compare(members, direct)) is not None:
            deltas[cell] = delta
    return deltas


class FactualityComparison(NamedTuple):
    """One setting of a task family, followed with factual and with counterfactual rules."""

    factual_task: str
    counterfactual_task: str
    factual: Proportion
    counterfactual: Proportion
    delta: Delta
    """Counterfactual minus factual; `delta.pairs` is None when the items do not pair."""


def factuality_comparisons(records: Sequence[Record]) -> dict[Cell, FactualityComparison]:
    """Per factual cell with a counterfactual counterpart (Table 2): both accuracies and the gap.

    The counterpart has the same setting, counterfactual rules, and the task itself (generated
    twins) or its `-cf` set (official data).
    """
    cells = _by_cell(records)
    found = {}
    for cell, members in cells.items():
        if not cell.counterfactual or cell.quantity == "none":
            continue
        factual_cell = cell._replace(task=family(cell.task), counterfactual=False)
        factual = cells.get(factual_cell)
        if not factual or (delta := compare(members, factual)) is None:
            continue
        found[factual_cell] = FactualityComparison(
            factual_task=factual_cell.task,
            counterfactual_task=cell.task,
            factual=accuracy(factual),
            counterfactual=accuracy(members),
            delta=delta,
        )
    return dict(sorted(found.items(), key=lambda item: str(item[0])))


def _by_cell(records: Sequence[Record]) -> dict[Cell, list[Record]]:
    cells: dict[Cell, list[Record]] = defaultdict(list)
    for record in records:
        cells[cell_of(record)].append(record)
    return cells
