"""A run's delta reads the rows past a mark, and its errors again unless the run is frozen."""

from pathlib import Path

from rulebench.core.items import ItemResult, Outcome
from rulebench.engine.run_delta import START, Delta, Identity, Mark
from rulebench.engine.store.database import Store


def put(db: Store, run_id: str, indexes: range, error: str | None = None) -> None:
    writer = db.writer()
    for index in indexes:
        outcome = None if error else Outcome(passed=index % 2 == 0)
        writer.put_result(run_id, ItemResult(item_id=f"i{index}", outcome=outcome, error=error))
    writer.close()


def rows_read(delta: Delta) -> dict[bool, int]:
    """Rows read, finished (False) and errors (True)."""
    found = {False: 0, True: 0}
    for part in delta.parts:
        found[part.failed] += int(part.sums[0])
    return found


def mark_after(delta: Delta) -> Mark:
    """The mark a caller keeps after reading `delta` from the start."""
    last = max(part.last_rowid for part in delta.parts)
    errors = tuple(rowid for part in delta.parts for rowid in part.error_rowids)
    return Mark(last, errors, delta.identity)


def test_a_read_from_the_start_sums_every_row_and_names_the_errors(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as db:
        run = db.create_run("t", "m", {})
        put(db, run.id, range(5))
        put(db, run.id, range(5, 7), error="503")
        delta = db.run_delta().since(run.id, None, START)
        assert db.run_delta().check(run.id) == (delta.identity, 7)
    assert delta.run_rows == 7 and rows_read(delta) == {False: 5, True: 2}
    assert delta.identity.status == "running" and not delta.frozen
    [errors] = [part for part in delta.parts if part.failed]
    assert len(errors.error_rowids) == 2 and errors.group == "all"
    [finished] = [part for part in delta.parts if not part.failed]
    assert finished.sums[5] == 3  # passed: items 0, 2 and 4


def test_past_the_mark_only_new_rows_and_a_running_runs_errors_are_read(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as db:
        run = db.create_run("t", "m", {})
        put(db, run.id, range(4))
        put(db, run.id, range(4, 6), error="503")
        mark = mark_after(db.run_delta().since(run.id, None, START))
        put(db, run.id, range(6, 9))
        running = db.run_delta().since(run.id, None, mark)
        db.finish_run(run.id, "completed", {})
        ended = db.run_delta().since(run.id, None, mark)
        finished = db.get_run(run.id)
        seen = Identity(finished.status, finished.ended_at, finished.pid)
        frozen = db.run_delta().since(run.id, None, mark._replace(identity=seen))
    assert rows_read(running) == {False: 3, True: 2}  # the errors may have been retried
    assert not ended.frozen and rows_read(ended) == {False: 3, True: 2}  # its identity moved
    assert frozen.frozen and rows_read(frozen) == {False: 3, True: 0}  # nothing can retry them
    assert frozen.run_rows == 9


def test_an_error_retried_in_place_is_read_as_finished(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as db:
        run = db.create_run("t", "m", {})
        put(db, run.id, range(3), error="503")
        mark = mark_after(db.run_delta().since(run.id, None, START))
        put(db, run.id, range(1))  # item 0 retried: it finishes, in the same row
        delta = db.run_delta().since(run.id, None, mark)
    assert rows_read(delta) == {False: 1, True: 2} and delta.run_rows == 3
    assert max(part.last_rowid for part in delta.parts) == mark.after_rowid  # no new row


def test_a_grouped_read_keeps_each_value_apart(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as db:
        run = db.create_run("t", "m", {})
        writer = db.writer()
        for index, value in enumerate(("a", "b", "a", None)):
            metadata = {} if value is None else {"kind": value}
            result = ItemResult(item_id=f"i{index}", outcome=Outcome(score=1.0), metadata=metadata)
            writer.put_result(run.id, result)
        writer.close()
        delta = db.run_delta().since(run.id, "kind", START)
    assert sorted((str(p.group), int(p.sums[0])) for p in delta.parts) == [
        ("None", 1),
        ("a", 2),
        ("b", 1),
    ]


def test_an_unknown_run_reads_nothing(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as db:
        assert db.run_delta().since("nope", None, START).parts == []
        assert db.run_delta().check("nope") == (Identity(None, None, None), 0)
