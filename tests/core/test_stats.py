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
