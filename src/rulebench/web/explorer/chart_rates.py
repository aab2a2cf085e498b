"""A scenarios run's pass rates by scenario, rule and strategy, summed in SQL for its charts.

The report reads every result into records and averages each case's repeats in Python
(`scenarios.scoring.rates_by`); on a 100,000-result run that took seconds per view, tens of
seconds under load (issue 36). Here the store sums the verdicts per group and case
(`RunDelta.pass_sums`), and the Wilson interval is computed from each group's sums, as `rate`
computes it for one group: the same figures from a few rows per chart.

Where the SQL sums cannot stand for the report's, `sql_rates` answers None and the caller
computes the report's way: a judged result whose case fields the report could not read (it
names the item), or a case found under two spellings of one strategy.
"""

from typing import Literal

from rulebench.core.stats import wilson_interval
from rulebench.engine.store.database import Store
from rulebench.engine.summary import SAMPLES, UNREADABLE, PassSums
from rulebench.scenarios.scoring import Rate, strategy_of

Breakdown = Literal["scenario", "behavior", "strategy"]
ORDER: tuple[Breakdown, ...] = ("scenario", "behavior", "strategy")
_FIELDS: tuple[tuple[str, ...], ...] = (
    ("scenario",),
    ("behavior",),
    ("suite", "category", "strategy"),
)
"""The metadata fields each breakdown groups by; a strategy is named from the last three."""
CASE_FIELD = "case_id"
REQUIRED = (CASE_FIELD, "scenario", "behavior", "bucket", "suite")
"""The case fields `CaseMeta` requires as text: a record lacking one is unreadable."""

Rates = dict[Breakdown, dict[str, Rate]]
"""Per breakdown, each group's label (sorted) and its pass rate."""


def sql_rates(db: Store, run_id: str) -> Rates | None:
    """The run's pass rate per group of each breakdown, or None where the report must count."""
    rows = db.run_delta().pass_sums(run_id, _FIELDS, CASE_FIELD, REQUIRED)
    extra = {row.breakdown: row.samples for row in rows if row.breakdown < 0}
    if extra.get(UNREADABLE, 0):
        return None  # the report's reading names the unreadable item
    sums: dict[Breakdown, dict[str, list[float]]] = {name: {} for name in ORDER}
    strategy_samples = 0
    for row in rows:
        if row.breakdown < 0:
            continue
        name = ORDER[row.breakdown]
        label = _label(name, row)
        if name == "strategy":
            strategy_samples += row.samples
        if label is not None:
            found = sums[name].setdefault(label, [0.0, 0])
            found[0] += row.pass_sum
            found[1] += row.samples
    if strategy_samples != extra.get(SAMPLES, 0):
        return None  # a case under several spellings: the report averages it once, in one group
    return {
        name: {label: _rate(*sums[name][label]) for label in sorted(sums[name])} for name in ORDER
    }


def _label(name: Breakdown, row: PassSums) -> str | None:
    """The group's label as the report names it; None where the report leaves the case out."""
    if name != "strategy":
        return str(row.key[0])
    suite, category, strategy = row.key[:3]
    # As `to_records`: the category, else the lowercased one of older runs, else "default".
    return strategy_of(str(suite), str(category or strategy or "default"))


def _rate(pass_sum: float, samples: float) -> Rate:
    found = wilson_interval(pass_sum, int(samples))
    return Rate(value=found.value, low=found.low, high=found.high, n=int(samples))
