import sqlite3
from pathlib import Path

import pytest

from rulebench.core.errors import StoreError
from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message, Usage
from rulebench.engine.store import database as store_module
from rulebench.engine.store.database import Store
from rulebench.engine.store.migrations import MIGRATIONS


def make_result(item_id: str, error: str | None = None, score: float = 1.0) -> ItemResult:
    return ItemResult(
        item_id=item_id,
        messages=(Message(role="user", content="q"), Message(role="assistant", content="a")),
        reply="a",
        outcome=None if error else Outcome(answer="a", score=score, details={"k": [1, 2]}),
        error=error,
        usage=Usage(prompt_tokens=3, completion_tokens=1),
        latency_s=0.5,
        calls=1,
        metadata={"hops": 2},
    )


def test_results_round_trip_through_the_store(store: Store) -> None:
    run = store.create_run("t", "scripted/echo", {"a": 1})
    writer = store.writer()
    original = make_result("i1")
    writer.put_result(run.id, original)
    writer.close()
    assert list(store.iter_results(run.id)) == [original]
    assert store.get_run(run.id).config == {"a": 1}


def test_migrations_are_recorded_and_applied_once(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    Store(path).close()
    names = [row[0] for row in sqlite3.connect(path).execute("SELECT name FROM _migrations")]
    assert names == [name for name, _ in MIGRATIONS]


def test_a_finished_result_is_never_replaced_but_an_error_is(store: Store) -> None:
    run = store.create_run("t", "m", {})
    writer = store.writer()
    writer.put_result(run.id, make_result("done", score=1.0))
    writer.put_result(run.id, make_result("failed", error="boom"))
    writer.flush()
    writer.put_result(run.id, make_result("done", score=0.0))
    writer.put_result(run.id, make_result("failed", score=1.0))
    writer.close()
    results = {r.item_id: r for r in store.iter_results(run.id)}
    assert len(results) == 2
    assert results["done"].outcome is not None and results["done"].outcome.score == 1.0
    assert results["failed"].error is None
    assert store.count_results(run.id) == {"ok": 2, "error": 0}
    assert store.finished_item_ids(run.id) == {"done", "failed"}


def test_get_run_accepts_a_unique_prefix_and_names_unknown_ids(store: Store) -> None:
    run = store.create_run("t", "m", {})
    assert store.get_run(run.id[:12]).id == run.id
    with pytest.raises(StoreError, match="no run 'nope'"):
        store.get_run("nope")


def test_a_running_run_whose_process_died_reads_killed(store: Store) -> None:
    run = store.create_run("t", "m", {})
    assert store.effective_status(run) == "running"
    dead = run.model_copy(update={"pid": 2**22 + 12345})
    assert store.effective_status(dead) == "killed"


def test_unwritable_store_path_is_a_one_line_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(StoreError, match=r"cannot open the results store at .*file/sub/s\.sqlite"):
        Store(blocker / "sub" / "s.sqlite")


def test_corrupt_file_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="not an SQLite database"):
        Store(path)


def test_a_prefix_with_like_wildcards_matches_literally(store: Store) -> None:
    run = store.create_run("t", "m", {})
    store._db.execute("UPDATE runs SET id = 'a_b%c-1' WHERE id = ?", (run.id,))
    store.create_run("t", "m", {})
    assert store.get_run("a_b%c").id == "a_b%c-1"
    with pytest.raises(StoreError, match="no run 'aXb'"):
        store.get_run("aXb")  # `_` is not a wildcard


def test_a_run_whose_id_is_taken_draws_another(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two runs started in the same second may draw the same id: the later one redraws."""
    draws = iter(["20261127-120000-aaaaaa", "20261127-120000-aaaaaa", "20261127-120000-bbbbbb"])
    monkeypatch.setattr(store_module, "new_run_id", lambda: next(draws))
    first = store.create_run("t", "m", {})
    second = store.create_run("t", "m", {"other": True})
    assert (first.id, second.id) == ("20261127-120000-aaaaaa", "20261127-120000-bbbbbb")
    assert sorted(run.id for run in store.list_runs()) == [first.id, second.id]
    assert store.get_run(second.id).config == {"other": True}


def test_a_store_that_keeps_drawing_taken_ids_says_so(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "new_run_id", lambda: "20261127-120000-aaaaaa")
    store.create_run("t", "m", {})
    with pytest.raises(StoreError, match="run ids were taken"):
        store.create_run("t", "m", {})
    assert len(store.list_runs()) == 1


def test_outcomes_are_the_results_verdicts_and_metadata_without_the_rest(store: Store) -> None:
    run = store.create_run("t", "m", {})
    stored = [
        make_result("a"),
        make_result("b", error="timed out"),
        make_result("c", score=0.0).model_copy(
            update={"outcome": Outcome(answer="x", passed=False, reason="turn 2: leaked")}
        ),
    ]
    writer = store.writer()
    for result in stored:
        writer.put_result(run.id, result)
    writer.close()
    whole, light = list(store.iter_results(run.id)), list(store.iter_outcomes(run.id))
    assert [r.item_id for r in light] == [r.item_id for r in whole] == ["a", "b", "c"]
    for full, outcome_only in zip(whole, light, strict=True):
        assert outcome_only.error == full.error
        assert outcome_only.metadata == full.metadata
        if full.outcome is None:
            assert outcome_only.outcome is None
        else:
            assert outcome_only.outcome == full.outcome.model_copy(update={"details": {}})
        assert outcome_only.messages == () and outcome_only.usage.prompt_tokens == 0
