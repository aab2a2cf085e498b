"""Stores for merge tests: real runs of the echo task, shard stores cut from a whole run."""

import asyncio
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from pydantic import JsonValue

from rulebench.core.items import ItemResult
from rulebench.core.shards import Shard
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.engine.store.merge import CONTENT_COLUMNS
from rulebench.engine.store.records import RunRecord
from rulebench.models.base import Model
from rulebench.models.scripted import ScriptedModel

from tests.conftest import EchoTask

ECHO = RunSpec(task="echo-test", model="scripted/echo")
ITEMS = 12


def run_into(
    path: Path,
    shard: Shard | None,
    model: Model | None = None,
    spec: RunSpec = ECHO,
    resume_id: str | None = None,
) -> str:
    """Run the echo task of ITEMS items (or one shard of it) into its own store; its run id."""
    run_spec = spec.model_copy(update={"shard": shard})
    with Store(path) as store:
        runner = Runner(store)
        task, chosen = EchoTask(ITEMS), model or ScriptedModel("echo")
        report = asyncio.run(runner.run(task, chosen, run_spec, resume_id))
        return report.run.id


def whole_run(path: Path) -> tuple[RunRecord, list[ItemResult]]:
    """The one run of a store and its results."""
    with Store(path, readonly=True) as store:
        [run] = store.list_runs()
        return run, list(store.iter_results(run.id))


def write_shard(
    path: Path, whole: RunRecord, results: Sequence[ItemResult], shard: Shard, whole_items: int
) -> None:
    """Store `results` as shard `shard` of the run `whole`, as a shard's own process would."""
    config = whole.config | {"shard": shard.model_dump()}
    with Store(path) as store:
        run = store.create_run(whole.task, whole.model, config)
        writer = store.writer()
        for result in results:
            writer.put_result(run.id, result)
        writer.close()
        place: dict[str, JsonValue] = {"index": shard.index, "count": shard.count}
        place |= {"whole_items": whole_items, "shard_items": len(results)}
        store.finish_run(run.id, "completed", {"shard": place})


def content(path: Path, run_id: str | None = None) -> list[tuple[object, ...]]:
    """A run's results (all runs' without `run_id`): item id and content columns, in order."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return db.execute(
            f"SELECT item_id, {', '.join(CONTENT_COLUMNS)} FROM results "
            "WHERE ? IS NULL OR run_id = ? ORDER BY run_id, item_id",
            (run_id, run_id),
        ).fetchall()


def counts(path: Path) -> tuple[int, int, int]:
    """Runs, results and cache entries in a store."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        row = db.execute(
            "SELECT (SELECT COUNT(*) FROM runs), (SELECT COUNT(*) FROM results), "
            "(SELECT COUNT(*) FROM cache)"
        ).fetchone()
        return int(row[0]), int(row[1]), int(row[2])
