"""Full-text search: built by a migration over old results, kept in step by every write."""

from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError, StoreError
from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message
from rulebench.engine.store.database import Store
from rulebench.engine.store.migrations import SEARCH_STEP
from rulebench.engine.store.search import split_marks

from tests.engine.old_stores import store_before


def _result(item_id: str, prompt: str, reply: str, answer: str | None = None) -> ItemResult:
    return ItemResult(
        item_id=item_id,
        messages=(
            Message(role="system", content="be brief"),
            Message(role="user", content=prompt),
        ),
        reply=reply,
        outcome=Outcome(answer=answer, score=1.0),
    )


WALRUS = [Message(role="user", content="where do walruses live")]


def _found(store: Store, text: str, run_id: str | None = None) -> set[tuple[str, str]]:
    return {(hit.run_id, hit.item_id) for hit in store.searcher().hits(text, run_id, 0, 100)}


def test_writes_keep_the_index_in_step(store: Store) -> None:
    first, second = store.create_run("t", "m", {}), store.create_run("t", "m", {})
    writer = store.writer()
    writer.put_result(first.id, _result("a", "tell me of otters", "otters float", "river"))
    writer.put_result(second.id, _result("b", "tell me of herons", "herons wade", "marsh"))
    writer.close()
    assert _found(store, "otters") == {(first.id, "a")}  # prompt and reply
    assert _found(store, "marsh") == {(second.id, "b")}  # answer
    assert _found(store, "tell") == {(first.id, "a"), (second.id, "b")}
    assert _found(store, "tell", second.id) == {(second.id, "b")}
    assert _found(store, "item_id:b") == {(second.id, "b")}
    assert _found(store, "brief") == {(first.id, "a"), (second.id, "b")}  # system message


def test_a_retried_error_leaves_no_trace_of_its_old_text(store: Store) -> None:
    run = store.create_run("t", "m", {})
    writer = store.writer()
    failed = ItemResult(
        item_id="a",
        messages=(Message(role="user", content="first wording"),),
        error="timeout",
    )
    writer.put_result(run.id, failed)
    writer.flush()
    writer.put_result(run.id, _result("a", "second wording", "a fresh reply"))
    writer.close()
    assert _found(store, "first") == set()
    assert _found(store, "fresh") == {(run.id, "a")}
    store._db.execute("INSERT INTO results_search (results_search) VALUES ('integrity-check')")


def test_the_migration_indexes_results_stored_before_it(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    store_before(SEARCH_STEP, path, "old-item", "zebras graze", WALRUS)
    with Store(path) as store:
        assert _found(store, "walruses") == {("r1", "old-item")}
        assert _found(store, "zebras") == {("r1", "old-item")}
        assert _found(store, "paris") == {("r1", "old-item")}
        [hit] = store.searcher().hits("walruses", None, 0, 10)
    assert ("walruses", True) in split_marks(hit.snippet)


def test_a_read_only_open_of_an_unindexed_store_reads_and_says_how_to_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.sqlite"
    store_before(SEARCH_STEP, path, "old-item", "zebras graze", WALRUS)
    before = path.read_bytes()
    # Read-only media: tests run as root, for whom permission bits grant every write.
    monkeypatch.setattr("rulebench.engine.store.connection.os.access", lambda *_: False)
    with Store(path, readonly=True) as store:
        assert [r.item_id for r in store.iter_results("r1")] == ["old-item"]
        with pytest.raises(StoreError, match=r"no search index yet.*where the file can be"):
            store.searcher().hits("zebras", None, 0, 10)
    assert path.read_bytes() == before


@pytest.mark.parametrize("query", ['"unclosed', "AND", "nosuchcolumn:word", "   "])
def test_a_bad_query_is_a_clear_error(store: Store, query: str) -> None:
    store.create_run("t", "m", {})
    with pytest.raises(ConfigError, match="search"):
        store.searcher().count(query, None)


def test_counts_match_the_hits_and_pages_do_not_overlap(store: Store) -> None:
    run = store.create_run("t", "m", {})
    writer = store.writer()
    for i in range(7):
        writer.put_result(run.id, _result(f"i{i}", f"puzzle number {i}", "solved"))
    writer.close()
    search = store.searcher()
    assert search.count("puzzle", run.id) == 7
    pages = [search.hits("puzzle", run.id, offset, 3) for offset in (0, 3, 6)]
    ids = [hit.item_id for page in pages for hit in page]
    assert sorted(ids) == [f"i{i}" for i in range(7)] and ids[0] == "i6"  # newest first


def test_a_search_in_one_run_reads_the_index_first(store: Store) -> None:
    """Read from the index, not once per row of the run (that took seconds per page)."""
    run = store.create_run("t", "m", {})
    captured: list[str] = []
    search = store.searcher()
    search._query = lambda sql, params: captured.append(sql) or []  # type: ignore[func-returns-value]
    search.hits("word", run.id, 0, 10)
    plan = store._db.execute(
        f"EXPLAIN QUERY PLAN {captured[0]}", (*"\x02\x03", 16, "word", run.id, 10, 0)
    ).fetchall()
    assert "results_search" in plan[0][-1] and "VIRTUAL TABLE" in plan[0][-1]


def test_prefix_queries_read_a_prefix_index_and_find_every_length(store: Store) -> None:
    """`ana*` reads an index of 2- and 3-character prefixes, not every term of the index."""
    [(declared,)] = store._db.execute(
        "SELECT sql FROM sqlite_master WHERE name = 'results_search'"
    ).fetchall()
    assert "prefix = '2 3'" in declared
    run = store.create_run("t", "m", {})
    writer = store.writer()
    writer.put_result(run.id, _result("a", "an anaconda", "analysis done", "banana"))
    writer.put_result(run.id, _result("b", "a nap", "anchors away", "ant"))
    writer.close()
    assert _found(store, "a*") == {(run.id, "a"), (run.id, "b")}
    assert _found(store, "ana*") == {(run.id, "a")}
    assert _found(store, "anch*") == {(run.id, "b")}
    assert _found(store, "ban*") == {(run.id, "a")}
    assert _found(store, "nap*") == {(run.id, "b")}
