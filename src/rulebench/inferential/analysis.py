"""The paper's analyses over stored results, each number with its 95% confidence interval.

Accuracy per cell, CoT deltas, the trigger/execution split and the five capability dimensions.
"""

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from rulebench.core.items import ItemResult
from rulebench.core.stats import Z_95, Proportion, wilson_interval

ExtractMode = Literal["paper", "robust"]
ErrorKind = Literal["triggering", "execution", "no citation"]
DIMENSIONS = ("Executing", "Triggering", "Formal", "Applying", "Counterfactual")


class Record(NamedTuple):
    """What the analyses need of one finished inferential item."""

    task: str
    quantity: str
    form: str
    cot: bool
    counterfactual: bool
    correct: bool | None
    """None when the item does not count (a refusal, excluded from accuracy)."""
    cited: int | None
    golden_index: int | None
    listed: int


def to_records(results: Iterable[ItemResult], mode: ExtractMode) -> list[Record]:
    """Finished items as records, judged by `mode` (both modes are stored with each result)."""
    records = []
    for result in results:
        if result.outcome is None:
            continue  # errors are not answers
        meta, details = result.metadata, result.outcome.details
        judged = details.get(mode)
        if isinstance(judged, dict):
            correct = None if judged.get("refused") else bool(judged.get("correct"))
        else:  # log-likelihood scoring has one answer, whatever the mode
            correct = None if result.outcome.score is None else result.outcome.score == 1.0
        cited = details.get("cited_rule")
        golden = meta.get("golden_index")
        listed = meta.get("listed_rules")
        records.append(
            Record(
                task=str(meta["task"]),
                quantity=str(meta["quantity"]),
                form=str(meta["form"]),
                cot=bool(meta["cot"]),
                counterfactual=bool(meta["counterfactual"]),
                correct=correct,
                cited=cited if isinstance(cited, int) else None,
                golden_index=golden if isinstance(golden, int) else None,
                listed=len(listed) if isinstance(listed, list) else 0,
            )
        )
    return records


def accuracy(records: Iterable[Record]) -> Proportion:
    """Share correct among the records that count, with its Wilson interval."""
    counted = [r.correct for r in records if r.correct is not None]
    return wilson_interval(sum(counted), len(counted))


def accuracy_by(
    records: Iterable[Record], key: Callable[[Record], tuple[object, ...]]
) -> dict[tuple[object, ...], Proportion]:
    """Accuracy per group, groups named by `key`."""
    groups: dict[tuple[object, ...], list[Record]] = defaultdict(list)
    for record in records:
        groups[key(record)].append(record)
    return {
        group: accuracy(members)
        for group, members in sorted(groups.items(), key=lambda g: str(g[0]))
    }


class Delta(BaseModel):
    """A difference of two accuracies (e.g. with minus without CoT), with a 95% interval."""

    model_config = ConfigDict(frozen=True)

    value: float
    low: float
    high: float
    n_with: int
    n_without: int


def difference(with_: Proportion, without: Proportion) -> Delta | None:
    """The difference with - without, with a Wald interval for two independent proportions."""
    if not with_.n or not without.n:
        return None
    p, q = with_.value, without.value
    half = Z_95 * math.sqrt(p * (1 - p) / with_.n + q * (1 - q) / without.n)
    return Delta(
        value=p - q, low=p - q - half, high=p - q + half, n_with=with_.n, n_without=without.n
    )


def cot_deltas(records: Sequence[Record]) -> dict[tuple[object, ...], Delta]:
    """Per task and rule quantity: accuracy with CoT minus without."""
    by = accuracy_by(records, lambda r: (r.task, r.quantity, r.cot))
    deltas: dict[tuple[object, ...], Delta] = {}
    for (task, quantity, cot), with_ in by.items():
        without = by.get((task, quantity, False))
        if cot and without is not None and (delta := difference(with_, without)) is not None:
            deltas[(task, quantity)] = delta
    return deltas


def classify_error(record: Record) -> ErrorKind | None:
    """Why a wrong answer is wrong; None for right or uncounted answers.

    It cited a noise rule (triggering), the golden one (execution), or none it listed.
    """
    if record.correct is not False:
        return None
    if record.cited is None or not 1 <= record.cited <= record.listed:
        return "no citation"
    return "execution" if record.cited == record.golden_index else "triggering"


def error_split(records: Iterable[Record]) -> dict[str, dict[ErrorKind, Proportion]]:
    """Per task: the share of wrong answers of each kind, over wrong answers that cite or not."""
    kinds: dict[str, list[ErrorKind]] = defaultdict(list)
    for record in records:
        kind = classify_error(record)
        if kind is not None:
            kinds[record.task].append(kind)
    return {
        task: {
            k: wilson_interval(found.count(k), len(found))
            for k in ("triggering", "execution", "no citation")
        }
        for task, found in sorted(kinds.items())
    }


class Dimension(BaseModel):
    """One capability dimension: the mean of its cells' accuracies, with a 95% interval."""

    model_config = ConfigDict(frozen=True)

    name: str
    value: float
    low: float
    high: float
    cells: int


def _mean_of_cells(name: str, cells: Sequence[Proportion]) -> Dimension | None:
    cells = [c for c in cells if c.n]
    if not cells:
        return None
    mean = sum(c.value for c in cells) / len(cells)
    half = Z_95 * math.sqrt(sum(c.value * (1 - c.value) / c.n for c in cells)) / len(cells)
    return Dimension(
        name=name,
        value=mean,
        low=max(0.0, mean - half),
        high=min(1.0, mean + half),
        cells=len(cells),
    )


def dimensions(records: Sequence[Record]) -> list[Dimension]:
    """The five capability dimensions of the paper's appendix F.

    Each is the mean accuracy of the (task, setting) cells it covers: Executing = golden-rule
    cells, Triggering = all-rule cells, Formal = FOL cells, Applying = CoT cells,
    Counterfactual = counterfactual cells.
    """
    cells = accuracy_by(records, lambda r: (r.task, r.quantity, r.form, r.cot, r.counterfactual))
    selectors: dict[str, Callable[[tuple[object, ...]], bool]] = {
        "Executing": lambda c: c[1] == "golden",
        "Triggering": lambda c: c[1] == "all",
        "Formal": lambda c: c[2] == "fol",
        "Applying": lambda c: c[3] is True,
        "Counterfactual": lambda c: c[4] is True,
    }
    found = [
        _mean_of_cells(name, [p for c, p in cells.items() if pick(c)])
        for name, pick in selectors.items()
    ]
    return [d for d in found if d is not None]
