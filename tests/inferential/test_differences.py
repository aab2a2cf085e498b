"""Differences of accuracies: Newcombe's intervals, unpaired and paired."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulebench.core.stats import wilson_interval
from rulebench.inferential.differences import difference, paired_difference


@pytest.mark.parametrize(
    ("first", "second", "low", "high"),
    [
        # Newcombe (1998), Statistics in Medicine 17:873, Table II, method 10.
        ((56, 70), (48, 80), 0.0524, 0.3339),
        ((9, 10), (3, 10), 0.1705, 0.8090),
    ],
)
def test_unpaired_interval_matches_newcombes_published_examples(
    first: tuple[int, int], second: tuple[int, int], low: float, high: float
) -> None:
    delta = difference(wilson_interval(*first), wilson_interval(*second))
    assert delta is not None and delta.pairs is None
    assert delta.low == pytest.approx(low, abs=5e-4) and delta.high == pytest.approx(high, abs=5e-4)


def test_no_interval_has_zero_width_at_0_or_100_percent() -> None:
    for right in (0, 20):
        unpaired = difference(wilson_interval(right, 20), wilson_interval(right, 20))
        paired = paired_difference([(right > 0, right > 0)] * 20)
        for delta in (unpaired, paired):
            assert delta is not None and delta.value == 0.0
            assert delta.low < -0.05 and delta.high > 0.05


def test_pairing_narrows_the_interval_when_the_two_sides_agree() -> None:
    # 30 items right on both sides, 10 wrong on both, 6 right only first, 2 only second.
    pairs = [(True, True)] * 30 + [(False, False)] * 10 + [(True, False)] * 6
    pairs += [(False, True)] * 2
    paired = paired_difference(pairs)
    unpaired = difference(wilson_interval(36, 48), wilson_interval(32, 48))
    assert paired is not None and unpaired is not None and paired.pairs == 48
    assert paired.value == pytest.approx(unpaired.value) == pytest.approx(4 / 48)
    assert paired.high - paired.low < unpaired.high - unpaired.low
    assert paired.low < paired.value < paired.high


def test_empty_input_has_no_difference() -> None:
    assert paired_difference([]) is None
    assert difference(wilson_interval(0, 0), wilson_interval(3, 4)) is None


@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60))
def test_paired_interval_holds_the_estimate_inside_minus_one_to_one(
    pairs: list[tuple[bool, bool]],
) -> None:
    delta = paired_difference(pairs)
    assert delta is not None
    assert -1.0 <= delta.low <= delta.value <= delta.high <= 1.0
    assert delta.high > delta.low
