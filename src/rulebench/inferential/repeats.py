"""How much a cell's accuracy moves between repeats (`--repeats` with sampling).

Each repeat samples with its own seed, so the spread across repeats is the run-to-run
variation a single sampled run hides; with greedy decoding it is zero, as it should be.
"""

import statistics
from collections import defaultdict
from collections.abc import Sequence
from typing import NamedTuple

from rulebench.inferential.analysis import Cell, Record, cell_of


class Spread(NamedTuple):
    """A cell's accuracy per repeat and their mean, standard deviation and range."""

    accuracies: tuple[float, ...]
    mean: float
    std: float
    """Sample standard deviation across repeats (n - 1 in the denominator)."""
    low: float
    high: float


def repeat_spread(records: Sequence[Record]) -> dict[Cell, Spread]:
    """Per cell measured in more than one repeat: the spread of its accuracy across repeats."""
    tallies: dict[Cell, dict[int, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        if record.correct is not None:
            tallies[cell_of(record)][record.repeat].append(record.correct)
    spreads = {}
    for cell, by_repeat in tallies.items():
        if len(by_repeat) < 2:
            continue
        accuracies = tuple(sum(v) / len(v) for _, v in sorted(by_repeat.items()))
        spreads[cell] = Spread(
            accuracies,
            statistics.fmean(accuracies),
            statistics.stdev(accuracies),
            min(accuracies),
            max(accuracies),
        )
    return spreads
