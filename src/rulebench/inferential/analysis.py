"""The paper's analyses over stored results, each number with its 95% confidence interval.

Accuracy per cell, the trigger/execution split and the five capability dimensions. A cell is
a task under one setting (`Cell`): it never mixes CoT with direct answers, shot counts, rule
citation or rule layouts. Differences between cells (CoT, counterfactual) live in `pairing`.
"""

import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Literal, NamedTuple, TypeVar

from pydantic import BaseModel, ConfigDict, JsonValue

from rulebench.core.items import ItemResult
from rulebench.core.stats import Proportion, proportion_over_samples
from rulebench.inferential.citation import BY_ORDINAL, is_json_number_citation
from rulebench.inferential.item_meta import ItemMeta

ExtractMode = Literal["paper", "robust"]
ErrorKind = Literal["triggering", "execution", "no citation"]
ERROR_KINDS: tuple[ErrorKind, ...] = ("triggering", "execution", "no citation")
Counting = Literal["rulebench", "upstream"]
"""How wrong answers are split: rulebench's three classes, or upstream's two (`classify_error`,
`classify_as_upstream`)."""
UPSTREAM_KINDS: tuple[ErrorKind, ...] = ("triggering", "execution")
DIMENSIONS = ("Executing", "Triggering", "Formal", "Applying", "Counterfactual")
Key = TypeVar("Key", bound=Hashable)


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
    shots: int = 0
    cite_rule: bool = False
    """The prompt asked for "Applied rule: N" (the behaviour analysis)."""
    layout: str = "per-item"
    sample_id: str = ""
    """The question the item asks; a generated task's factual and counterfactual items (and
    its CoT and direct items) share it, which is what pairs them."""
    gold: str = ""
    """The gold answer of this item (the counterfactual one where that applies)."""
    repeat: int = 0
    """Which evaluation of the item this is (`--repeats`)."""
    scoring: str = "generate"
    """How the item was scored: "generate" (a reply, extracted) or a log-likelihood scoring."""
    json_number_citation: bool = False
    """law-cf: the reply is a JSON object citing its rule as a number (see
    `classify_as_upstream`)."""


class Cell(NamedTuple):
    """A task under one setting: every setting field that changes the prompt."""

    task: str
    quantity: str
    form: str
    cot: bool
    shots: int
    counterfactual: bool
    cite_rule: bool
    layout: str
    scoring: str = "generate"
    """Generated and judged, or picked by log-likelihood ("loglik", "loglik-norm"): labelled
    per cell, since one run may hold both (items without candidates are generated)."""


def cell_of(record: Record) -> Cell:
    """The cell a record belongs to."""
    return Cell(
        record.task,
        record.quantity,
        record.form,
        record.cot,
        record.shots,
        record.counterfactual,
        record.cite_rule,
        record.layout,
        record.scoring,
    )


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
        scoring = details.get("scoring")
        record = record_from(meta, correct, details.get("cited_rule"))
        if isinstance(scoring, str):
            record = record._replace(scoring=scoring)
        if record.task == "law-cf" and is_json_number_citation(result.reply):
            record = record._replace(json_number_citation=True)
        records.append(record)
    return records


def record_from(meta: Mapping[str, JsonValue], correct: bool | None, cited: JsonValue) -> Record:
    """A record from a result's metadata, its judgement and the rule number it cited."""
    item = ItemMeta.read(meta)
    return Record(
        task=item.task,
        quantity=item.quantity,
        form=item.form,
        cot=item.cot,
        counterfactual=item.counterfactual,
        correct=correct,
        cited=cited if isinstance(cited, int) else None,
        golden_index=item.golden_index,
        listed=len(item.listed_rules),
        shots=item.shots,
        cite_rule=item.cite_rule,
        layout=item.layout,
        sample_id=item.sample_id,
        gold=item.gold,
        repeat=item.repeat,
    )


def sample_key(record: Record, position: int) -> Hashable:
    """What the repeats of one item share: its cell and question (its position without one).

    Records stored before items carried a sample id count one each.
    """
    return (cell_of(record), record.sample_id) if record.sample_id else position


def accuracy(records: Iterable[Record]) -> Proportion:
    """Share correct over the samples that count, with its Wilson interval (n = samples).

    Repeats of an item (`--repeats`) are averaged into one score per sample first; the spread
    between repeats is `repeats.repeat_spread`'s.
    """
    return proportion_over_samples(
        (sample_key(r, i), float(r.correct)) for i, r in enumerate(records) if r.correct is not None
    )


def accuracy_by(records: Iterable[Record], key: Callable[[Record], Key]) -> dict[Key, Proportion]:
    """Accuracy per group, groups named by `key`, in a stable order."""
    groups: dict[Key, list[Record]] = defaultdict(list)
    for record in records:
        groups[key(record)].append(record)
    return {
        group: accuracy(members)
        for group, members in sorted(groups.items(), key=lambda g: str(g[0]))
    }


def classify_error(record: Record) -> ErrorKind | None:
    """Why a wrong answer is wrong; None for right or uncounted answers.

    It cited a noise rule (triggering), the golden one (execution), or none it listed.
    """
    if record.correct is not False:
        return None
    if record.cited is None or not 1 <= record.cited <= record.listed:
        return "no citation"
    return "execution" if record.cited == record.golden_index else "triggering"


def classify_as_upstream(record: Record) -> ErrorKind | None:
    """Why a wrong answer is wrong as upstream's parse counts it: triggering or execution only.

    Upstream has no "no citation" class. Its ordinal reader (clutrr, salad) returns False for a
    reply naming no ordinal, and False equals position 0, so such a reply cites the first rule;
    elsewhere a missing or unlisted rule id differs from the golden one, a triggering error.
    law-cf compares a JSON number with the golden id as a string: always triggering.
    """
    if record.correct is not False:
        return None
    if record.json_number_citation:
        return "triggering"
    cited = (
        record.cited if record.cited is not None and 1 <= record.cited <= record.listed else None
    )
    if cited is None and record.task in BY_ORDINAL:
        cited = 1
    return "execution" if cited is not None and cited == record.golden_index else "triggering"


def is_behaviour_record(record: Record) -> bool:
    """Whether a record can enter the trigger/execution split.

    Only prompts that asked for the applied rule (`--cite-rule`) name one on purpose, and only
    with several rules listed can the cited one be a noise rule.
    """
    return record.cite_rule and record.quantity in ("few", "all")


def error_split(records: Iterable[Record]) -> dict[str, dict[ErrorKind, Proportion]]:
    """Per task: each kind's share of the wrong answers (see `error_split_by`)."""
    return error_split_by(records, lambda r: r.task)


def error_split_by(
    records: Iterable[Record], key: Callable[[Record], Key], counting: Counting = "rulebench"
) -> dict[Key, dict[ErrorKind, Proportion]]:
    """Per group: each kind's share of the wrong answers.

    Only behaviour records count (see `is_behaviour_record`); the shares are over all wrong
    answers, those that cite no listed rule included. Under `--repeats` a sample's wrong
    repeats are averaged into one share per kind first, so n counts samples, as accuracy does.
    `counting="upstream"` splits them as upstream's parse does (`classify_as_upstream`), into
    `UPSTREAM_KINDS` only, so the shares compare with the paper's.
    """
    classify = classify_error if counting == "rulebench" else classify_as_upstream
    kept = ERROR_KINDS if counting == "rulebench" else UPSTREAM_KINDS
    kinds: dict[Key, list[tuple[Hashable, ErrorKind]]] = defaultdict(list)
    for position, record in enumerate(records):
        kind = classify(record) if is_behaviour_record(record) else None
        if kind is not None:
            kinds[key(record)].append((sample_key(record, position), kind))
    return {
        group: {
            k: proportion_over_samples((sample, float(kind == k)) for sample, kind in found)
            for k in kept
        }
        for group, found in sorted(kinds.items(), key=lambda g: str(g[0]))
    }


class Dimension(BaseModel):
    """One capability dimension: the mean of its cells' accuracies, with a 95% interval."""

    model_config = ConfigDict(frozen=True)

    name: str
    value: float
    low: float
    high: float
    cells: int


def mean_of_cells(name: str, cells: Sequence[Proportion]) -> Dimension | None:
    """The unweighted mean of the cells' accuracies; None when no cell has items.

    The interval adds the cells' Wilson intervals in quadrature on each side (Zou and Donner's
    MOVER for a sum of independent proportions), so it keeps Wilson's width at 0% and 100%.
    """
    cells = [c for c in cells if c.n]
    if not cells:
        return None
    k = len(cells)
    mean = sum(c.value for c in cells) / k
    below = math.sqrt(sum((c.value - c.low) ** 2 for c in cells)) / k
    above = math.sqrt(sum((c.high - c.value) ** 2 for c in cells)) / k
    return Dimension(
        name=name, value=mean, low=max(0.0, mean - below), high=min(1.0, mean + above), cells=k
    )


# Which cells measure each dimension (paper appendix F). Cells without rules follow no rule,
# so they measure none; FOL and counterfactual cells always list rules.
_SELECTORS: dict[str, Callable[[Cell], bool]] = {
    "Executing": lambda c: c.quantity == "golden",
    "Triggering": lambda c: c.quantity == "all",
    "Formal": lambda c: c.form == "fol" and c.quantity != "none",
    "Applying": lambda c: c.cot and c.quantity != "none",
    "Counterfactual": lambda c: c.counterfactual and c.quantity != "none",
}


def dimensions(records: Sequence[Record]) -> list[Dimension]:
    """The measured capability dimensions of the paper's appendix F, in `DIMENSIONS` order.

    Each is the mean accuracy of the cells it covers: Executing = golden-rule cells,
    Triggering = all-rule cells, Formal = FOL cells, Applying = CoT cells, Counterfactual =
    counterfactual cells. A dimension with no cell of its own is left out, never shown as 0.
    """
    cells = accuracy_by(records, cell_of)
    found = [
        mean_of_cells(name, [p for cell, p in cells.items() if pick(cell)])
        for name, pick in _SELECTORS.items()
    ]
    return [d for d in found if d is not None]
