"""The store refuses foreign files untouched, reads without writing, and keeps any text."""

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from rulebench.core.errors import StoreError
from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.engine.store.migrations import MIGRATIONS
from rulebench.models.scripted import ScriptedModel

from tests.conftest import EchoTask

HALF_EMOJI = json.loads('"cut here \\ud83d"')  # what a server sends when a token limit splits 😀


def snapshot(folder: Path) -> dict[str, str]:
    """Every file of a folder with its content hash."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_a_foreign_sqlite_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "app.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE users (name TEXT)")
    db.execute("INSERT INTO users VALUES ('ada')")
    db.commit()
    db.close()
    before = snapshot(tmp_path)
    for readonly in (False, True):
        with pytest.raises(
            StoreError, match=r"not a rulebench store \(it holds other tables: users"
        ):
            Store(path, readonly=readonly)
    assert snapshot(tmp_path) == before  # no WAL switch, no schema, no -wal/-shm files


def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just some notes\n")
    before = snapshot(tmp_path)
    with pytest.raises(StoreError, match="not an SQLite database"):
        Store(path)
    assert snapshot(tmp_path) == before


def test_a_store_from_a_newer_rulebench_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("INSERT INTO _migrations VALUES ('999_future', 'now')")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="newer rulebench"):
        Store(path)


@pytest.mark.parametrize("readonly", [False, True])
def test_a_newer_rulebench_store_with_a_new_table_is_called_newer(
    tmp_path: Path, readonly: bool
) -> None:
    """A newer schema step may add a table: the store is newer, not foreign."""
    path = tmp_path / "s.sqlite"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE labels (run_id TEXT, label TEXT)")
    db.execute("INSERT INTO _migrations VALUES ('999_labels', 'now')")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match=r"newer rulebench \(schema step 999_labels\)"):
        Store(path, readonly=readonly)


def test_reading_never_writes_and_never_waits_for_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        run = store.create_run("t", "m", {})
    before = snapshot(tmp_path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process is writing
    try:
        with Store(path, readonly=True) as reader:
            assert reader.get_run(run.id).id == run.id
            with pytest.raises(StoreError, match="read-only"):
                reader.create_run("t", "m", {})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    after = snapshot(tmp_path)
    assert after[path.name] == before[path.name]


def test_a_missing_store_is_not_created_by_a_reader(tmp_path: Path) -> None:
    path = tmp_path / "none.sqlite"
    with pytest.raises(StoreError, match="no results store"):
        Store(path, readonly=True)
    assert not path.exists()


def test_an_older_store_is_upgraded_and_its_replies_kept_once(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    first_name, first_sql = MIGRATIONS[0]
    db.executescript(first_sql)
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    db.execute("INSERT INTO _migrations VALUES (?, 'then')", (first_name,))
    db.execute("INSERT INTO runs VALUES ('r1','t','m','{}','0','x',NULL,'completed',1,'{}')")
    transcript = json.dumps(
        [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    )
    db.execute(
        "INSERT INTO results VALUES ('r1','i1','ok',?,'a',NULL,1.0,NULL,NULL,'{}',NULL,"
        "1,1,0.1,1,0,0,'{}','x')",
        (transcript,),
    )
    db.commit()
    db.close()
    with Store(path, readonly=True) as store:
        [result] = store.iter_results("r1")
    assert [m.content for m in result.messages] == ["q", "a"] and result.reply == "a"
    stored = sqlite3.connect(path).execute("SELECT messages FROM results").fetchone()[0]
    assert json.loads(stored) == [{"role": "user", "content": "q"}]


def test_a_reply_is_stored_once(store: Store) -> None:
    run = store.create_run("t", "m", {})
    reply = "x" * 100_000
    writer = store.writer()
    writer.put_result(
        run.id,
        ItemResult(
            item_id="i",
            messages=(Message(role="user", content="q"), Message(role="assistant", content=reply)),
            reply=reply,
            outcome=Outcome(score=1.0),
        ),
    )
    writer.close()
    row = store._db.execute("SELECT messages, reply FROM results").fetchone()
    assert reply not in row[0] and row[1] == reply
    [back] = store.iter_results(run.id)
    assert back.messages[-1].content == reply


@pytest.mark.parametrize("use_cache", [True, False])
async def test_a_reply_with_a_lone_surrogate_is_kept_with_a_recorded_repair(
    store: Store, use_cache: bool
) -> None:
    model = ScriptedModel(mode="fixed", reply=HALF_EMOJI)
    spec = RunSpec(task="echo-test", model="scripted/fixed", use_cache=use_cache)
    for _ in range(2):  # the second run reads the repaired reply back from the cache
        report = await Runner(store).run(EchoTask(n=5), model, spec)
        assert report.run.status == "completed"
        results = list(store.iter_results(report.run.id))
        assert len(results) == 5
        for result in results:
            assert result.error is None
            assert result.reply == "cut here \ufffd"
            assert any("lone UTF-16 surrogate" in w for w in result.warnings)


async def test_a_damaged_page_fails_the_run_and_reads_are_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    spec = RunSpec(task="echo-test", model="scripted/echo")
    with Store(path) as store:
        await Runner(store).run(EchoTask(n=300), ScriptedModel(mode="echo"), spec)
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        [(page_size,)] = store._db.execute("PRAGMA page_size").fetchall()
        [(root,)] = store._db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'results'")
    with path.open("r+b") as damaged:  # scribble over the results table's first page
        damaged.seek((root - 1) * page_size)
        damaged.write(b"\xff" * 100)
    with Store(path) as store:
        with pytest.raises(StoreError, match="malformed"):
            await Runner(store).run(EchoTask(n=50, prefix="new"), ScriptedModel(mode="echo"), spec)
        statuses = {run.status for run in store.list_runs()}
        assert statuses == {"completed", "failed"}  # the first run, and the damaged one
        first = store.list_runs()[-1]
        with pytest.raises(StoreError, match=r"cannot read the results store .*malformed"):
            list(store.iter_results(first.id))


def test_another_programs_migrations_table_is_not_read_as_ours(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE _migrations (id INTEGER, version TEXT)")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="not a rulebench store"):
        Store(path)
