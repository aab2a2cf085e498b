"""Differences of two accuracies with 95% intervals, for independent groups or matched items.

Both intervals are Newcombe's hybrid score intervals (method 10 of his 1998 papers): they
combine the two Wilson intervals, so, unlike a Wald interval, they never shrink to zero width
when both accuracies are 0% or 100%, and they stay inside [-1, 1].
"""

import math
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from rulebench.core.stats import Proportion, wilson_interval


class Delta(BaseModel):
    """A difference of two accuracies (first minus second), with its 95% interval."""

    model_config = ConfigDict(frozen=True)

    value: float
    low: float
    high: float
    n_with: int
    """Items behind the first accuracy."""
    n_without: int
    """Items behind the second accuracy."""
    pairs: int | None = None
    """Matched items the interval is computed over; None for independent groups."""


def difference(with_: Proportion, without: Proportion) -> Delta | None:
    """`with_ - without` for two independent groups (Newcombe's hybrid score interval)."""
    if not with_.n or not without.n:
        return None
    p, q = with_.value, without.value
    low = p - q - math.hypot(p - with_.low, without.high - q)
    high = p - q + math.hypot(with_.high - p, q - without.low)
    return Delta(
        value=p - q,
        low=max(-1.0, low),
        high=min(1.0, high),
        n_with=with_.n,
        n_without=without.n,
    )


def paired_difference(pairs: Sequence[tuple[bool, bool]]) -> Delta | None:
    """First minus second accuracy over matched items, each pair (first right, second right).

    Newcombe's paired method 10: the two Wilson intervals joined with the correlation of the
    pairs (phi, with his continuity correction), so agreement between the two sides narrows the
    interval as a paired design should.
    """
    n = len(pairs)
    if not n:
        return None
    both = sum(1 for a, b in pairs if a and b)
    only_first = sum(1 for a, b in pairs if a and not b)
    only_second = sum(1 for a, b in pairs if b and not a)
    neither = n - both - only_first - only_second
    first = wilson_interval(both + only_first, n)
    second = wilson_interval(both + only_second, n)
    p, q = first.value, second.value
    phi = _phi(both, only_first, only_second, neither)
    low = p - q - _joined(p - first.low, second.high - q, phi)
    high = p - q + _joined(first.high - p, q - second.low, phi)
    return Delta(
        value=p - q, low=max(-1.0, low), high=min(1.0, high), n_with=n, n_without=n, pairs=n
    )


def _phi(both: int, only_first: int, only_second: int, neither: int) -> float:
    """Correlation of the pairs, shrunk towards 0 by Newcombe's continuity correction."""
    n = both + only_first + only_second + neither
    margins = (
        (both + only_first)
        * (only_second + neither)
        * (both + only_second)
        * (only_first + neither)
    )
    if not margins:
        return 0.0
    cross = both * neither - only_first * only_second
    corrected = cross - n / 2 if cross > n / 2 else min(cross, 0)
    return corrected / math.sqrt(margins)


def _joined(first: float, second: float, phi: float) -> float:
    return math.sqrt(max(0.0, first * first - 2 * phi * first * second + second * second))
