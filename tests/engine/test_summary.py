import pytest

from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Usage
from rulebench.engine.store.database import Store
from rulebench.engine.summary import summarize


def stored(store: Store, results: list[ItemResult]) -> str:
    run = store.create_run("t", "m", {})
    writer = store.writer()
    for result in results:
        writer.put_result(run.id, result)
    writer.close()
    return run.id


def result(
    n: int,
    score: float | None,
    passed: bool | None = None,
    error: str | None = None,
    group: object = "a",
) -> ItemResult:
    outcome = None if error else Outcome(score=score, passed=passed)
    return ItemResult(
        item_id=str(n),
        outcome=outcome,
        error=error,
        usage=Usage(prompt_tokens=2),
        metadata={"g": group},
    )


def test_summary_separates_errors_and_excluded_from_accuracy(store: Store) -> None:
    run_id = stored(
        store,
        [
            result(1, 1.0),
            result(2, 0.0),
            result(3, None),
            result(4, None, error="down"),
            result(5, 1.0, group=7),
        ],
    )
    rows = summarize(store.tally_results(run_id, "g"), grouped=True)
    assert [row.group for row in rows] == ["7", "a", "all"]
    _, a, overall = rows
    assert a.items == 4 and a.errors == 1 and a.excluded == 1
    assert a.accuracy is not None and a.accuracy.n == 2 and a.accuracy.value == pytest.approx(0.5)
    assert overall.accuracy is not None and overall.accuracy.value == pytest.approx(2 / 3)
    assert overall.pass_rate is None and overall.prompt_tokens == 10 and overall.items == 5


def test_pass_rate_counts_verdicts_and_missing_groups_read_dash(store: Store) -> None:
    run_id = stored(
        store, [result(1, None, passed=True, group=None), result(2, None, passed=False)]
    )
    rows = summarize(store.tally_results(run_id, "g"), grouped=True)
    assert [row.group for row in rows] == ["-", "a", "all"]
    overall = rows[-1]
    assert overall.pass_rate is not None and overall.pass_rate.value == 0.5
    assert overall.accuracy is None and overall.excluded == 0


def test_empty_run_summarises_to_zero(store: Store) -> None:
    run_id = stored(store, [])
    [overall] = summarize(store.tally_results(run_id), grouped=False)
    assert overall.items == 0 and overall.accuracy is None and overall.errors == 0
