"""Search covers a reasoning model's thinking: every reply's, in new stores and migrated ones."""

import sqlite3
from pathlib import Path

import pytest

from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message
from rulebench.engine.store.database import Store
from rulebench.engine.store.migrations import REASONING_SEARCH_STEP

from tests.engine.old_stores import store_before
from tests.engine.test_store_reasoning import stored_run


def _two_turns(item_id: str, early_thought: str, last_thought: str | None) -> ItemResult:
    """A two-turn result: the first reply's thinking kept in the transcript, the last's apart."""
    return ItemResult(
        item_id=item_id,
        messages=(
            Message(role="user", content="pick a colour"),
            Message(role="assistant", content="blue", reasoning=early_thought),
            Message(role="user", content="and a number"),
            Message(role="assistant", content="seven", reasoning=last_thought),
        ),
        reply="seven",
        reasoning=last_thought,
        outcome=Outcome(answer="seven", score=1.0),
    )


def _found(store: Store, text: str) -> set[str]:
    return {hit.item_id for hit in store.searcher().hits(text, None, 0, 100)}


def test_a_word_only_in_the_thinking_finds_the_item(store: Store) -> None:
    stored_run(
        store,
        _two_turns("a", "pondering turquoise", "counting pebbles"),
        _two_turns("b", "plain thoughts", None),
    )
    assert _found(store, "pebbles") == {"a"}  # the last reply's thinking
    assert _found(store, "turquoise") == {"a"}  # an earlier reply's thinking
    assert _found(store, "reasoning:thoughts") == {"b"}
    assert _found(store, "reasoning:seven") == set()  # the answer is not the thinking
    assert _found(store, "seven") == {"a", "b"}
    [hit] = store.searcher().hits("pebbles", None, 0, 10)
    assert "pebbles" in hit.snippet


def test_a_retried_error_leaves_no_trace_of_its_old_thinking(store: Store) -> None:
    run = store.create_run("t", "m", {})
    writer = store.writer()
    failed = _two_turns("a", "first musing", None).model_copy(
        update={"reply": None, "outcome": None, "error": "timeout at turn 2"}
    )
    writer.put_result(run.id, failed)
    writer.flush()
    assert _found(store, "first") == {"a"}
    writer.put_result(run.id, _two_turns("a", "second musing", "new ponder"))
    writer.close()
    assert _found(store, "first") == set()
    assert _found(store, "new second") == {"a"}
    store._db.execute("INSERT INTO results_search (results_search) VALUES ('integrity-check')")


def _store_with_old_thinking(path: Path) -> None:
    """A store from before the step, whose result holds thinking (step 005 stored it)."""
    store_before(REASONING_SEARCH_STEP, path, "old", "Paris", [Message(role="user", content="q")])
    with sqlite3.connect(path) as db:
        db.execute("UPDATE results SET reasoning = 'recalling geography'")
        db.execute(
            "UPDATE results SET messages = json_insert(messages, '$[#]', "
            "json_object('role', 'assistant', 'content', 'hm', 'reasoning', 'earlier musing'))"
        )
    db.close()


def test_the_migration_indexes_the_thinking_of_results_stored_before_it(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    _store_with_old_thinking(path)
    with Store(path) as store:
        assert _found(store, "geography") == {"old"}
        assert _found(store, "reasoning:musing") == {"old"}
        assert _found(store, "paris") == {"old"}
        stored_run(store, _two_turns("new", "fresh", "later"))
        assert _found(store, "later") == {"new"}
        store._db.execute("INSERT INTO results_search (results_search) VALUES ('integrity-check')")


def test_a_read_only_store_before_the_step_still_searches_its_old_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.sqlite"
    _store_with_old_thinking(path)
    before = path.read_bytes()
    # Read-only media: tests run as root, for whom permission bits grant every write.
    monkeypatch.setattr("rulebench.engine.store.connection.os.access", lambda *_: False)
    with Store(path, readonly=True) as store:
        assert _found(store, "paris") == {"old"}
        assert _found(store, "geography") == set()  # that index has no thinking
        [old] = store.iter_results("r1")
        assert old.reasoning == "recalling geography"
    assert path.read_bytes() == before


def test_a_store_without_search_indexes_its_results_once_not_twice() -> None:
    from rulebench.engine.store.migrations import (
        MIGRATIONS,
        REASONING_SEARCH_STEP,
        SEARCH_STEP,
        pending_steps,
    )

    before_search = {name for name, _ in MIGRATIONS[:3]}
    steps = dict(pending_steps(before_search))
    assert steps[SEARCH_STEP] == ""  # recorded, its index built by the later step alone
    assert "INSERT INTO results_search" in steps[REASONING_SEARCH_STEP]
    after_search = before_search | {SEARCH_STEP, "005_reasoning"}
    assert dict(pending_steps(after_search)).keys() == {REASONING_SEARCH_STEP, "007_attempts"}
