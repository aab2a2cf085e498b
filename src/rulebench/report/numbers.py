"""The reports' numbers as JSON (`rulebench report ... --json`), for scripts and notebooks.

The same values the Markdown tables show, as fractions in [0, 1] with their 95% interval and
count, never formatted strings. An undefined value (a rate of nothing, F1 without positives)
is null: JSON has no NaN, and a 0 would read as a measured zero.
"""

import math
from collections.abc import Sequence

from pydantic import JsonValue

from rulebench.core.stats import Proportion
from rulebench.inferential.analysis import (
    ERROR_KINDS,
    UPSTREAM_KINDS,
    Cell,
    Record,
    accuracy,
    accuracy_by,
    cell_of,
    dimensions,
    error_split_by,
    is_behaviour_record,
)
from rulebench.inferential.differences import Delta
from rulebench.inferential.pairing import cot_deltas, factuality_comparisons
from rulebench.scenarios.judge import DetectionScores, Interval
from rulebench.scenarios.scoring import (
    CaseRecord,
    Rate,
    compare,
    failure_spread,
    headline,
    rates_by,
)


def finite(value: float) -> float | None:
    """The value, or None for NaN and infinities (not representable in JSON)."""
    return value if math.isfinite(value) else None


def proportion_json(value: Proportion | None) -> JsonValue:
    """`{"value", "low", "high", "successes", "n"}`; None when there is nothing counted."""
    rate = rate_json(value)
    if isinstance(rate, dict) and value is not None:
        rate["successes"] = value.successes
    return rate


def rate_json(value: Rate | Proportion | None) -> JsonValue:
    """A rate as `{"value", "low", "high", "n"}`; None when not measured."""
    if value is None or not value.n:
        return None
    return {
        "value": finite(value.value),
        "low": finite(value.low),
        "high": finite(value.high),
        "n": value.n,
    }


def interval_json(value: Interval | Delta) -> dict[str, JsonValue]:
    """A score or difference with its interval; a difference also gives its counts."""
    found: dict[str, JsonValue] = {
        "value": finite(value.value),
        "low": finite(value.low),
        "high": finite(value.high),
    }
    if isinstance(value, Delta):
        found.update(n_with=value.n_with, n_without=value.n_without, pairs=value.pairs)
    return found


# Scenarios


def scenario_numbers(records: Sequence[CaseRecord]) -> dict[str, JsonValue]:
    """One scenarios run: suite x bucket rates, headline, breakdowns and the repeats spread."""
    buckets = rates_by(records, lambda r: (r.suite, r.bucket))
    breakdowns: dict[str, JsonValue] = {
        f"by_{field}": _breakdown(records, field) for field in ("scenario", "behavior", "strategy")
    }
    repeated = len({r.repeat for r in records}) > 1
    spread = failure_spread(records) if repeated else {}
    return {
        "cases": len(records),
        "buckets": [
            {"suite": suite, "bucket": bucket, "rate": rate_json(value)}
            for (suite, bucket), value in buckets.items()
        ],
        "headline": rate_json(headline(records)),
        **breakdowns,
        "failures_std_across_repeats": [
            {"suite": suite, "bucket": bucket, "std": std}
            for (suite, bucket), std in spread.items()
        ],
    }


def _breakdown(records: Sequence[CaseRecord], field: str) -> dict[str, JsonValue]:
    """Pass rate per value of `field`; cases without one (strategy of basic cases) left out."""
    having = [r for r in records if getattr(r, field) is not None]
    by = rates_by(having, lambda r: (str(getattr(r, field)),))
    return {key: rate_json(value) for (key,), value in by.items()}


def scenario_comparisons(runs: Sequence[tuple[str, Sequence[CaseRecord]]]) -> list[JsonValue]:
    """McNemar's test between each pair of (label, records), as the report's last table."""
    found: list[JsonValue] = []
    for i, (first, a) in enumerate(runs):
        for second, b in runs[i + 1 :]:
            result = compare(a, b)
            found.append({"first": first, "second": second, **result.model_dump(mode="json")})
    return found


# Judge


def detection_json(scores: DetectionScores) -> dict[str, JsonValue]:
    """Judge scores with "violation" as the positive class."""
    return {
        "n": scores.n,
        "accuracy": proportion_json(scores.accuracy),
        "precision": proportion_json(scores.precision),
        "recall": proportion_json(scores.recall),
        "f1": interval_json(scores.f1) if finite(scores.f1.value) is not None else None,
        "unparsed": scores.unparsed,
    }


# Inferential


def _cell_json(cell: Cell) -> dict[str, JsonValue]:
    return dict(cell._asdict())


def inferential_numbers(records: Sequence[Record]) -> dict[str, JsonValue]:
    """One inferential run: accuracy per cell, dimensions, CoT and factuality gaps, error split.

    The baselines (prompt echo, long tail) stay in the Markdown report: they need the run's
    samples rebuilt and are context, not the run's own scores.
    """
    cited = [r for r in records if is_behaviour_record(r)]
    return {
        "overall": proportion_json(accuracy(records)),
        "cells": [
            {**_cell_json(cell), "accuracy": proportion_json(value)}
            for cell, value in accuracy_by(records, cell_of).items()
        ],
        "dimensions": {
            d.name: {
                "value": finite(d.value),
                "low": finite(d.low),
                "high": finite(d.high),
                "cells": d.cells,
            }
            for d in dimensions(records)
        },
        "cot_minus_direct": [
            {**_cell_json(cell), "delta": interval_json(delta)}
            for cell, delta in cot_deltas(records).items()
        ],
        "counterfactual_minus_factual": [
            {
                **_cell_json(cell),
                "factual_task": found.factual_task,
                "counterfactual_task": found.counterfactual_task,
                "factual": proportion_json(found.factual),
                "counterfactual": proportion_json(found.counterfactual),
                "delta": interval_json(found.delta),
            }
            for cell, found in factuality_comparisons(records).items()
        ],
        "error_split": [
            {**_cell_json(cell), **{kind: proportion_json(split[kind]) for kind in ERROR_KINDS}}
            for cell, split in error_split_by(cited, cell_of).items()
        ],
        "error_split_as_upstream_counts": [
            {**_cell_json(cell), **{kind: proportion_json(split[kind]) for kind in UPSTREAM_KINDS}}
            for cell, split in error_split_by(cited, cell_of, "upstream").items()
        ],
    }
