"""Scenario scores: Wilson intervals for proportions, the headline's interval, strategies,
McNemar with nothing shared."""

import pytest

from rulebench.core.stats import wilson_interval
from rulebench.scenarios.scoring import (
    CaseRecord,
    compare,
    headline,
    rate,
    rates_by,
    strategy_of,
)


def record(
    case_id: str,
    passed: bool,
    suite: str = "redteam",
    bucket: str = "harmless",
    strategy: str | None = None,
) -> CaseRecord:
    return CaseRecord(case_id, suite, bucket, "Encryption", "Encryption", strategy, 0, passed)


@pytest.mark.parametrize("passed", [True, False])
def test_a_rate_at_0_or_100_percent_has_a_wide_interval(passed: bool) -> None:
    found = rate([[record(str(i), passed) for i in range(10)]])
    assert found.value == (1.0 if passed else 0.0) and found.n == 10
    assert found.high - found.low > 0.2
    expected = wilson_interval(10 if passed else 0, 10)
    assert (found.low, found.high) == (expected.low, expected.high)


def test_a_single_rate_is_wilson() -> None:
    found = rate([[record(str(i), i < 8) for i in range(10)]])
    # 8/10 at z=1.96 (worked by hand in tests/core/test_stats.py).
    assert (found.low, found.high) == pytest.approx((0.4902, 0.9433), abs=1e-4)


def test_rates_by_group_use_wilson() -> None:
    records = [record(str(i), True, bucket="harmless" if i % 2 else "helpful") for i in range(8)]
    rates = rates_by(records, lambda r: (r.bucket,))
    assert set(rates) == {("harmless",), ("helpful",)}
    assert all(r.value == 1.0 and r.low < 1.0 for r in rates.values())


def four_buckets(pass_every: int | None) -> list[CaseRecord]:
    """Records over the four headline buckets; pass_every None: all pass."""
    records = []
    for suite in ("basic", "redteam"):
        for bucket in ("harmless", "helpful"):
            for i in range(20):
                passed = pass_every is None or i % pass_every == 0
                records.append(record(f"{suite}{bucket}{i}", passed, suite, bucket))
    return records


def test_the_headline_bootstraps_a_mean_of_buckets() -> None:
    top = headline(four_buckets(2))
    assert top is not None and top.value == 0.5 and top.n == 80
    assert top.low < 0.5 < top.high


def test_the_headline_at_100_percent_is_not_zero_width() -> None:
    top = headline(four_buckets(None))
    assert top is not None and top.value == 1.0
    # Mean of four Wilson intervals of 20/20.
    assert top.low == pytest.approx(wilson_interval(20, 20).low)
    assert top.low < top.high


def test_the_headline_needs_all_four_buckets() -> None:
    assert headline([r for r in four_buckets(2) if r.suite == "basic"]) is None


@pytest.mark.parametrize(
    ("suite", "category", "strategy"),
    [
        ("redteam", "Just Ask", "Just Ask"),
        ("redteam", "Rule change", "Rule Change"),  # one strategy whatever the case
        ("redteam", "RULE CHANGE", "Rule Change"),
        ("mine", "indirection", "Indirection"),  # a known strategy in a suite of one's own
        ("redteam", "Custom Trick", "custom trick"),
        ("redteam", "default", None),
        ("basic", "default", None),
        ("benign", "round 2", None),
        ("basic", "3", None),
    ],
)
def test_only_red_team_cases_have_a_strategy(
    suite: str, category: str, strategy: str | None
) -> None:
    assert strategy_of(suite, category) == strategy


def test_mcnemar_is_none_without_shared_cases() -> None:
    first = [record("a", True), record("b", False)]
    second = [record("c", True)]
    result = compare(first, second)
    assert result.pairs == 0 and result.p_value is None
    same = compare(first, first)
    assert same.pairs == 2 and same.p_value == 1.0  # shared, no discordant pair: p = 1
