"""A run is "completed" only when every item has a stored result without error."""

import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from rulebench.core.errors import ModelError, StoreError
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.models.base import ModelInfo
from rulebench.models.scripted import ScriptedModel

from tests.conftest import EchoTask

SPEC = RunSpec(task="echo-test", model="scripted/echo", concurrency=4)


def hold_write_lock(path: Path, seconds: float, holding: threading.Event) -> None:
    """Another connection (as another process would) holds the write lock for `seconds`."""
    db = sqlite3.connect(path, timeout=30, isolation_level=None)
    db.execute("BEGIN IMMEDIATE")
    holding.set()
    time.sleep(seconds)
    db.execute("COMMIT")
    db.close()


class SlowEcho(ScriptedModel):
    """Echo after a pause, so the run is still going while the lock is held."""

    def __init__(self, delay_s: float) -> None:
        super().__init__(mode="echo", delay_s=delay_s)


@pytest.mark.slow  # waits out SQLite's 5 s busy timeout on purpose
async def test_a_lock_held_longer_than_sqlites_timeout_loses_nothing(store: Store) -> None:
    # SQLite's own busy wait is 5 s; the writer must keep the batch and retry beyond it.
    holding = threading.Event()
    holder = threading.Thread(target=hold_write_lock, args=(store.path, 7.0, holding))
    model = SlowEcho(delay_s=0.01)
    run = store.create_run("echo-test", "scripted/echo", {})
    holder.start()
    holding.wait()
    report = await Runner(store).run(EchoTask(n=100), model, SPEC, resume_id=run.id)
    holder.join()
    assert report.run.status == "completed"
    assert store.count_results(report.run.id) == {"ok": 100, "error": 0}


async def test_a_database_that_refuses_every_result_fails_the_run(store: Store) -> None:
    store._db.execute(  # a stand-in for a damaged page: every result insert is refused
        "CREATE TRIGGER refuse BEFORE INSERT ON results BEGIN SELECT RAISE(ABORT, 'damaged'); END"
    )
    with pytest.raises(StoreError, match="damaged"):
        await Runner(store).run(EchoTask(n=50), ScriptedModel(mode="echo"), SPEC)
    [run] = store.list_runs()
    assert run.status == "failed"
    assert "damaged" in str(run.notes["reason"])


async def test_a_refused_row_leaves_the_run_failed_and_resume_finishes_it(store: Store) -> None:
    task = EchoTask(n=20)
    victim = task.items()[7].id
    store._db.execute(
        "CREATE TRIGGER refuse BEFORE INSERT ON results "
        f"WHEN NEW.item_id = '{victim}' BEGIN SELECT RAISE(ABORT, 'bad row'); END"
    )
    report = await Runner(store).run(task, ScriptedModel(mode="echo"), SPEC)
    assert report.run.status == "failed"
    assert "1 of 20 items have no stored result" in str(report.run.notes["reason"])
    assert store.count_results(report.run.id) == {"ok": 19, "error": 0}

    store._db.execute("DROP TRIGGER refuse")
    resumed = await Runner(store).run(task, ScriptedModel(mode="echo"), SPEC, report.run.id)
    assert resumed.run.status == "completed" and resumed.completed_now == 1


class FailingOn:
    """Echoes, except for prompts containing `marker`, which fail like a 400 would."""

    def __init__(self, marker: str) -> None:
        self.marker = marker
        self.info = ModelInfo(provider="scripted", name="failing", identity="failing")

    async def generate(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
        if self.marker in messages[-1].content:
            raise ModelError("400 Bad Request: nope")
        return Completion(text=messages[-1].content)

    async def aclose(self) -> None:
        pass


async def test_item_errors_leave_the_run_failed_with_the_reason(store: Store) -> None:
    report = await Runner(store).run(EchoTask(n=10), FailingOn("question 3"), SPEC)
    assert report.run.status == "failed"
    assert "1 of 10 items ended in an error" in str(report.run.notes["reason"])


async def test_the_first_items_all_failing_alike_stop_the_run_early(store: Store) -> None:
    spec = SPEC.model_copy(update={"concurrency": 1})
    with pytest.raises(ModelError, match="first 5 items all failed the same way"):
        await Runner(store).run(EchoTask(n=100), FailingOn("question"), spec)
    [run] = store.list_runs()
    assert run.status == "failed" and store.count_results(run.id)["error"] == 5


async def test_one_success_first_means_no_early_stop(store: Store) -> None:
    spec = SPEC.model_copy(update={"concurrency": 1})
    task = EchoTask(n=12, prefix="q")
    model = FailingOn("q 1")  # q 0 passes, then q 1, q 10, q 11 fail: not all alike from the start
    report = await Runner(store).run(task, model, spec)
    assert report.completed_now == 12 and report.errors_now == 3


async def test_a_task_without_items_is_refused_up_front(store: Store) -> None:
    with pytest.raises(Exception, match="no items"):
        await Runner(store).run(EchoTask(n=0), ScriptedModel(mode="echo"), SPEC)
    assert store.list_runs() == []


async def test_a_resume_counts_only_its_own_cache_hits(store: Store) -> None:
    task = EchoTask(n=10)
    await Runner(store).run(task, ScriptedModel(mode="echo"), SPEC)  # fills the cache
    limited = SPEC.model_copy(update={"limit": 4})
    first = await Runner(store).run(task, ScriptedModel(mode="echo"), limited)
    assert first.cache_hits_now == 4
    resumed = await Runner(store).run(task, ScriptedModel(mode="echo"), SPEC, first.run.id)
    assert resumed.cache_hits_now == 6 and resumed.skipped == 4
    assert resumed.run.status == "completed"
