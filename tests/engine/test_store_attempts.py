"""Attempts stored beside calls; a store from before the attempts step reads them as 0."""

import json
import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from rulebench.core.items import ItemResult, Outcome
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.cache import PER_REQUEST_FIELDS
from rulebench.engine.store.database import Store
from rulebench.engine.store.migrations import ATTEMPTS_STEP
from rulebench.models.scripted import ScriptedModel

from tests.conftest import EchoTask
from tests.engine.old_stores import store_before
from tests.web.explorer_store import explorer, synthetic_result


def test_attempts_are_stored_and_read_back(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        run = store.create_run("t", "m", {})
        result = ItemResult(item_id="a", outcome=Outcome(score=1.0), calls=1, attempts=4)
        writer = store.writer()
        writer.put_result(run.id, result)
        writer.close()
        [read] = store.iter_results(run.id)
    assert (read.calls, read.attempts) == (1, 4)


def test_results_stored_before_the_step_read_no_attempts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.sqlite"
    store_before(ATTEMPTS_STEP, path, "old", "Paris")
    with monkeypatch.context() as unwritable:  # a store that cannot be upgraded here
        unwritable.setattr("rulebench.engine.store.connection.os.access", lambda *_: False)
        with Store(path, readonly=True) as store:
            [old] = store.iter_results("r1")
            assert (old.calls, old.attempts) == (1, 0)
    assert "attempts" not in _columns(path)
    with Store(path) as store:  # migrated: the column is there, the old row reads 0
        [old] = store.iter_results("r1")
        assert (old.calls, old.attempts) == (1, 0)
    assert "attempts" in _columns(path)


def _columns(path: Path) -> set[str]:
    with closing(sqlite3.connect(path)) as db:
        return {row[1] for row in db.execute("PRAGMA table_info(results)")}


def test_the_explorers_item_page_shows_the_requests_sent(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/x", {})
        writer = db.writer()
        result = synthetic_result(0).model_copy(update={"calls": 1, "attempts": 3})
        writer.put_result(run.id, result)
        writer.close()
    with explorer(store) as client:
        page = client.get(f"/runs/{run.id}/items/{result.item_id}")
    assert page.status_code == 200
    shown = dict(re.findall(r"<dt>([^<]+)</dt>\s*<dd>([^<]*)</dd>", page.text))
    assert shown["requests sent (retries included)"] == "3" and shown["model calls"] == "1"


async def test_a_cached_reply_keeps_no_trace_of_the_requests_that_got_it(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as db:
        spec = RunSpec(task="echo-test", model="scripted/echo")
        await Runner(db).run(EchoTask(2), ScriptedModel("echo"), spec)
    with closing(sqlite3.connect(path)) as db:
        rows = db.execute("SELECT completion FROM cache").fetchall()
    assert len(rows) == 2
    for (completion,) in rows:
        assert not PER_REQUEST_FIELDS & set(json.loads(completion))
