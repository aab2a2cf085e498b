import math

import pytest

from rulebench.core.stats import wilson_interval


def test_wilson_matches_published_values() -> None:
    # 8/10 at z=1.96, worked by hand from the Wilson formula: centre 0.7167, half-width 0.2266.
    interval = wilson_interval(8, 10)
    assert interval.value == pytest.approx(0.8)
    assert interval.low == pytest.approx(0.4902, abs=1e-4)
    assert interval.high == pytest.approx(0.9433, abs=1e-4)


def test_wilson_edges_stay_inside_unit_interval() -> None:
    assert wilson_interval(0, 5).low == 0.0
    assert wilson_interval(5, 5).high == 1.0
    assert 0 < wilson_interval(5, 5).low < 1


def test_wilson_empty_is_nan_and_formats() -> None:
    empty = wilson_interval(0, 0)
    assert math.isnan(empty.value)
    assert empty.format() == "n/a (n=0)"
    assert wilson_interval(1, 2).format().startswith("50.0 [")


def test_bootstrap_interval_brackets_the_mean_of_group_means() -> None:
    from rulebench.core.stats import bootstrap_mean_interval

    point, low, high = bootstrap_mean_interval([[1, 1, 1, 0], [0, 0, 0, 0, 0, 0, 1, 1]])
    assert point == pytest.approx((0.75 + 0.25) / 2)
    assert low < point < high and low >= 0 and high <= 1
    assert bootstrap_mean_interval([[1, 0]], seed=3) == bootstrap_mean_interval([[1, 0]], seed=3)
    assert math.isnan(bootstrap_mean_interval([])[0])


def test_mcnemar_exact_matches_the_binomial_test() -> None:
    from rulebench.core.stats import mcnemar_exact

    # 1 vs 9 discordant pairs: 2 * P(X <= 1), X ~ Bin(10, 1/2) = 2 * 11/1024.
    assert mcnemar_exact(1, 9) == pytest.approx(22 / 1024)
    assert mcnemar_exact(5, 5) == 1.0 and mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(9, 1) == mcnemar_exact(1, 9)


def test_mcnemar_without_discordant_pairs_is_one_but_no_pairs_is_the_callers_n_a() -> None:
    from rulebench.core.stats import mcnemar_exact

    # Shared cases that all agree: no evidence of a difference. With no shared case at all the
    # scenarios report prints "n/a" (tests/scenarios/test_scoring.py), never this p.
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)
