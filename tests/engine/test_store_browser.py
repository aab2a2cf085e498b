"""The explorer's paged reads: filters agree with the Python reading, pairs join by item."""

from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.core.items import ItemResult, Outcome
from rulebench.engine.store.browse import ResultFilter, RunFilter
from rulebench.engine.store.database import Store
from rulebench.engine.verdicts import VERDICTS, verdict_of

OUTCOMES = [
    Outcome(passed=True),
    Outcome(passed=False, score=1.0),  # a verdict wins over a score
    Outcome(score=1.0, answer="a"),
    Outcome(score=0.0, answer="b"),
    Outcome(score=0.5),
    Outcome(),  # finished, not counted (a refusal)
    None,  # an error
]


def stored(store: Store, outcomes: list[Outcome | None], model: str = "scripted/x") -> str:
    run = store.create_run("test", model, {})
    writer = store.writer()
    for index, outcome in enumerate(outcomes):
        writer.put_result(
            run.id,
            ItemResult(
                item_id=f"i{index}",
                outcome=outcome,
                error=None if outcome else "boom: 500",
                metadata={"kind": f"k{index % 2}", "n": index, "repeat": 0},
            ),
        )
    writer.close()
    return run.id


def test_each_verdict_filter_finds_what_verdict_of_says(store: Store) -> None:
    run_id = stored(store, OUTCOMES)
    browser = store.browser()
    everything = browser.results(run_id, ResultFilter(), 0, 100)
    for verdict in VERDICTS:
        found = browser.results(run_id, ResultFilter(verdict=verdict), 0, 100)
        assert [r.item_id for r in found] == [
            r.item_id for r in everything if verdict_of(r) == verdict
        ]
        assert browser.count(run_id, ResultFilter(verdict=verdict)) == len(found)
    counts = browser.verdict_counts(run_id)
    assert counts == (7, 2, 3, 1, 1)


def test_filters_combine_and_take_text_literally(store: Store) -> None:
    run_id = stored(store, OUTCOMES)
    browser = store.browser()
    where = ResultFilter(metadata={"kind": "k0", "n": "2"})
    assert [r.item_id for r in browser.results(run_id, where, 0, 10)] == ["i2"]
    assert browser.count(run_id, ResultFilter(error="doom")) == 0
    assert browser.count(run_id, ResultFilter(error="boom: 5")) == 1
    assert browser.count(run_id, ResultFilter(item_id="%")) == 0  # LIKE wildcards are text
    assert browser.count(run_id, ResultFilter(item_id="_")) == 0
    with pytest.raises(ConfigError, match="not a plain name"):
        browser.count(run_id, ResultFilter(metadata={'a"].x': "1"}))


def test_pages_are_slices_in_finish_order_and_latest_is_newest_first(store: Store) -> None:
    run_id = stored(store, [Outcome(passed=True)] * 25)
    browser = store.browser()
    pages = [browser.results(run_id, ResultFilter(), offset, 10) for offset in (0, 10, 20)]
    assert [[r.item_id for r in page] for page in pages] == [
        [f"i{i}" for i in range(0, 10)],
        [f"i{i}" for i in range(10, 20)],
        [f"i{i}" for i in range(20, 25)],
    ]
    assert [r.item_id for r in browser.latest(run_id, 3)] == ["i24", "i23", "i22"]
    assert browser.result(run_id, "i7") is not None and browser.result(run_id, "x") is None


def test_paired_counts_and_pairs_join_the_same_items(store: Store) -> None:
    first = stored(store, [Outcome(passed=p) for p in (True, True, False, False, True)])
    second = stored(store, [Outcome(passed=p) for p in (True, False, True, False)] + [None])
    browser = store.browser()
    counts = browser.paired_counts(first, second)
    assert counts == (4, 1, 1, 1)  # i4 is an error in the second run: unpaired
    differ = browser.pairs(first, second, "differ", 0, 10)
    assert [pair.first.item_id for pair in differ] == ["i1", "i2", "i4"]  # error vs passed
    assert browser.count_pairs(first, second, "only-first") == 1
    every = browser.pairs(first, second, "all", 0, 10)
    assert len(every) == 5 and all(pair.second is not None for pair in every)


def test_runs_filter_by_task_model_and_stored_status(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as db:
        a = db.create_run("scenarios", "openai/gpt-x", {})
        b = db.create_run("inferential", "scripted/echo", {})
        db.finish_run(b.id, "completed", {})
        browser = db.browser()
        assert [r.id for r in browser.runs(RunFilter(task="scenarios"), 0, 10)] == [a.id]
        assert [r.id for r in browser.runs(RunFilter(model="echo"), 0, 10)] == [b.id]
        assert browser.count_runs(RunFilter(status="completed")) == 1
        assert browser.count_runs(RunFilter(model="%")) == 0
        assert browser.run_values("task") == ["inferential", "scenarios"]
