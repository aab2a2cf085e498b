import pytest

from rulebench.core.items import ItemResult, Outcome
from rulebench.engine.summary import summarize


def result(
    score: float | None, passed: bool | None = None, error: str | None = None, group: str = "a"
) -> ItemResult:
    outcome = None if error else Outcome(score=score, passed=passed)
    return ItemResult(item_id=str(id(outcome)), outcome=outcome, error=error, metadata={"g": group})


def test_summary_separates_errors_and_excluded_from_accuracy() -> None:
    rows = summarize(
        [
            result(1.0),
            result(0.0),
            result(None),
            result(None, error="down"),
            result(1.0, group="b"),
        ],
        group_by="g",
    )
    assert [row.group for row in rows] == ["a", "b", "all"]
    a, _, overall = rows
    assert a.items == 4 and a.errors == 1 and a.excluded == 1
    assert a.accuracy is not None and a.accuracy.n == 2 and a.accuracy.value == pytest.approx(0.5)
    assert overall.accuracy is not None and overall.accuracy.value == pytest.approx(2 / 3)
    assert overall.pass_rate is None


def test_pass_rate_counts_verdicts() -> None:
    [overall] = summarize([result(None, passed=True), result(None, passed=False)])
    assert overall.pass_rate is not None and overall.pass_rate.value == 0.5
    assert overall.accuracy is None and overall.excluded == 0


def test_empty_run_summarises_to_zero() -> None:
    [overall] = summarize([])
    assert overall.items == 0 and overall.accuracy is None
