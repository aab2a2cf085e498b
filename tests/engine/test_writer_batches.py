"""The writer inserts many rows per statement; what it stores must be what a row per statement
stored: every row, in the order put, upserts applied row by row within one batch."""

import sqlite3
from pathlib import Path

from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.engine.store.cache import make_cache_key
from rulebench.engine.store.database import Store
from rulebench.engine.store.writer import ROWS_PER_STATEMENT, CacheRow, _insert_rows
from rulebench.models.base import ModelInfo

INFO = ModelInfo(provider="scripted", name="echo", identity="scripted/echo")


def result(item_id: str, error: str | None = None, score: float = 1.0) -> ItemResult:
    return ItemResult(
        item_id=item_id,
        messages=(Message(role="user", content=f"q {item_id}"),),
        outcome=None if error else Outcome(answer="a", score=score),
        error=error,
    )


def cache_row(index: int, run_id: str) -> CacheRow:
    key = make_cache_key(INFO, [Message(role="user", content=f"q{index}")], GenerateConfig())
    completion = Completion(text=f"a{index}").model_dump_json()
    return CacheRow(key.key, key.model, key.parts_json, completion, run_id, f"i{index}", "t")


def test_a_batch_larger_than_a_statement_is_stored_whole_and_in_order(tmp_path: Path) -> None:
    count = 2 * ROWS_PER_STATEMENT + 37  # several full statements and an odd remainder
    with Store(tmp_path / "s.sqlite") as store:
        run = store.create_run("t", "m", {})
        writer = store.writer()
        for index in range(count):
            writer.put_result(run.id, result(f"i{index:04d}", score=index))
            writer.put_cache(cache_row(index, run.id))
        writer.close()
    connection = sqlite3.connect(tmp_path / "s.sqlite")
    items = [row[0] for row in connection.execute("SELECT item_id FROM results ORDER BY rowid")]
    assert items == [f"i{index:04d}" for index in range(count)]
    scores = [row[0] for row in connection.execute("SELECT score FROM results ORDER BY rowid")]
    assert scores == [float(index) for index in range(count)]
    cached = [row[0] for row in connection.execute("SELECT item_id FROM cache ORDER BY rowid")]
    assert cached == [f"i{index}" for index in range(count)]
    hits = connection.execute(
        "SELECT count(*) FROM results_search WHERE results_search MATCH 'i0300'"
    ).fetchone()
    assert hits == (1,)  # the search index follows every row of a many-row statement


def test_within_one_batch_an_error_is_replaced_and_a_finished_result_kept(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        run = store.create_run("t", "m", {})
        writer = store.writer()
        writer.put_result(run.id, result("retried", error="boom"))
        writer.put_result(run.id, result("retried", score=1.0))
        writer.put_result(run.id, result("final", score=1.0))
        writer.put_result(run.id, result("final", error="late"))
        writer.close()
        stored = {r.item_id: r for r in store.iter_results(run.id)}
    assert stored["retried"].error is None
    assert stored["final"].error is None
    assert stored["final"].outcome is not None and stored["final"].outcome.score == 1.0


def test_statements_fit_a_low_parameter_limit(tmp_path: Path) -> None:
    connection = sqlite3.connect(tmp_path / "t.sqlite", isolation_level=None)
    connection.execute("CREATE TABLE t (a, b, c)")
    connection.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 10)  # three rows a statement
    rows = [(index, index * 2, str(index)) for index in range(11)]
    _insert_rows(connection, "INSERT INTO t (a, b, c) VALUES {rows}", "(?, ?, ?)", rows)
    assert connection.execute("SELECT a, b, c FROM t ORDER BY rowid").fetchall() == [
        (a, b, c) for a, b, c in rows
    ]
