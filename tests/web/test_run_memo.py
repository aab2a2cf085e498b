"""A run's aggregates are computed once per state of the run, and again when it changes."""

import threading
from pathlib import Path

import pytest

from rulebench.core.items import ItemResult, Outcome
from rulebench.engine.store.database import Store
from rulebench.web.explorer.run_memo import remembered, run_state


def put(db: Store, run_id: str, item_id: str, error: str | None = None) -> None:
    writer = db.writer()
    outcome = None if error else Outcome(passed=True)
    writer.put_result(run_id, ItemResult(item_id=item_id, outcome=outcome, error=error))
    writer.close()


def test_an_aggregate_is_computed_once_per_state_of_the_run(tmp_path: Path) -> None:
    calls: list[str] = []

    def verdicts(db: Store, run_id: str) -> dict[str, int]:
        calls.append(run_id)
        return db.count_results(run_id)

    with Store(tmp_path / "s.sqlite") as db:
        run = db.create_run("t", "m", {})
        put(db, run.id, "a")
        for _ in range(3):
            first = remembered(run_state(db, run), "counts", lambda: verdicts(db, run.id))
        assert first == {"ok": 1, "error": 0} and len(calls) == 1

        put(db, run.id, "b", error="503")  # a new result: a new state
        assert remembered(run_state(db, run), "counts", lambda: verdicts(db, run.id)) == {
            "ok": 1,
            "error": 1,
        }
        put(db, run.id, "b")  # the error retried: the counts move, so does the state
        again = remembered(run_state(db, run), "counts", lambda: verdicts(db, run.id))
        assert again == {"ok": 2, "error": 0} and len(calls) == 3

        db.finish_run(run.id, "completed", {})  # its status and end are part of the state
        ended = db.get_run(run.id)
        remembered(run_state(db, ended), "counts", lambda: verdicts(db, run.id))
        assert len(calls) == 4


def test_aggregates_of_one_state_are_kept_apart_by_name_and_store(tmp_path: Path) -> None:
    with Store(tmp_path / "one.sqlite") as one, Store(tmp_path / "two.sqlite") as two:
        run = one.create_run("t", "m", {})
        state = run_state(one, run)
        assert remembered(state, "a", lambda: 1) == 1
        assert remembered(state, "b", lambda: 2) == 2
        assert remembered(state, "a", lambda: 3) == 1
        other = two.create_run("t", "m", {})
        assert remembered(run_state(two, other), "a", lambda: 4) == 4


def test_requests_for_an_aggregate_being_computed_wait_for_it(tmp_path: Path) -> None:
    computing, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def slow_headline() -> int:
        calls.append(1)
        computing.set()
        release.wait(10)
        return len(calls)

    with Store(tmp_path / "s.sqlite") as db:
        state = run_state(db, db.create_run("t", "m", {}))
    values: list[int] = []
    first = threading.Thread(target=lambda: values.append(remembered(state, "h", slow_headline)))
    first.start()
    assert computing.wait(10)
    second = threading.Thread(target=lambda: values.append(remembered(state, "h", slow_headline)))
    second.start()
    second.join(0.5)  # it waits for the first computation rather than starting its own
    release.set()
    first.join(10)
    second.join(10)
    assert calls == [1] and values == [1, 1]


def test_a_failed_computation_leaves_the_waiting_requests_their_own(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as db:
        state = run_state(db, db.create_run("t", "m", {}))

    def broken() -> int:
        raise RuntimeError("the store went away")

    with pytest.raises(RuntimeError):
        remembered(state, "h", broken)
    assert remembered(state, "h", lambda: 7) == 7  # nothing kept, nothing left waiting
