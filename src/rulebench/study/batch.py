"""A batch: several runs (models x tasks) as one resumable unit, like inspect's eval-set.

A batch is identified by its runs' specs, not by anything stored apart: running the same
batch again looks each spec up in the store (`StoredRuns`), skips a completed run, resumes an
interrupted, failed or killed one through the ordinary resume path, and starts a missing one.
A run that cannot start or fails (an unknown spec, a server that is down) is reported in its
row and the batch goes on, so one model never costs the others their results.
"""

import hashlib
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Literal, NamedTuple, Protocol

from pydantic import BaseModel, ConfigDict, JsonValue

from rulebench.core.errors import ConfigError, RulebenchError
from rulebench.core.shards import Shard
from rulebench.engine.catalog import task_config
from rulebench.engine.evaluation import evaluate
from rulebench.engine.run_lookup import RUNS_SCANNED, find_run, run_identity
from rulebench.engine.run_settings import RunSettings
from rulebench.engine.run_specs import make_spec
from rulebench.engine.runner import ProgressReporter, RunSpec
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord
from rulebench.engine.summary import GroupSummary, summarize
from rulebench.engine.task_config import TaskConfig
from rulebench.models.registry import parse_spec

logger = logging.getLogger(__name__)

How = Literal["reused", "resumed", "new", "not started"]
"""reused: completed earlier, not run again; resumed: a stopped run finished; new: started
now; not started: the run could not begin (its row says why)."""


class PlannedRun(BaseModel):
    """One run of a batch: a model on a task, with the spec to run (None if it cannot be built)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    """The model as the table names it (its spec, or the experiment file's label)."""
    task: str
    """The task as the table names it (the task, or the experiment file's label)."""
    spec: RunSpec | None
    problem: str | None = None
    """Why there is no spec (an unknown model provider): the run is reported, never started."""


class BatchRow(BaseModel):
    """How one run of the batch stands after this invocation."""

    model_config = ConfigDict(frozen=True)

    model: str
    task: str
    run_id: str | None
    status: str
    """The stored status ("killed" for a run whose process died), or "not started"."""
    how: How
    summary: GroupSummary | None = None
    """The run's overall numbers, as the last row of `rulebench runs show`."""
    problem: str | None = None
    """Why the run did not complete, when it did not."""
    wall_s: float | None = None
    """How long it ran in this invocation (None: it did not run now)."""


class BatchResult(BaseModel):
    """Every run of the batch, in plan order."""

    model_config = ConfigDict(frozen=True)

    batch_id: str
    rows: list[BatchRow]
    shard: Shard | None = None
    """The shard every run of the batch is (None: whole runs): its table holds that share."""

    def incomplete(self) -> list[BatchRow]:
        """The rows whose run did not complete."""
        return [row for row in self.rows if row.status != "completed"]


class BatchWatcher(Protocol):
    """What the caller sees of a batch: each run before it starts (to draw it) and its row."""

    def begin(self, number: int, total: int, planned: PlannedRun, how: How) -> ProgressReporter:
        """Run `number` (from 1) of `total` is next; give the reporter its progress goes to."""
        ...

    def end(self, row: BatchRow) -> None:
        """Run `row` is done with for this invocation (ran, reused or failed)."""
        ...


class ModelChoice(NamedTuple):
    """A model of the batch: its spec, how the table names it, and the settings it runs with."""

    spec: str
    label: str
    settings: RunSettings


def plan_runs(
    task: str,
    config: TaskConfig | Mapping[str, JsonValue] | None,
    models: Sequence[ModelChoice],
    task_label: str | None = None,
    label: Callable[[str], str] = str,
) -> list[PlannedRun]:
    """The runs of one task on every model; a model given twice runs once.

    A bad task config is the same for every model: it raises at once. A model whose provider
    is unknown gets a row saying so, and the other models still run.

    Args:
        task: a task name (`catalog.TASKS`).
        config: the task's config, or fields for it.
        models: the models, each with its settings.
        task_label: how the table names the task (default: its name).
        label: how an error names a setting (the CLI spells it as its option).

    Raises:
        ConfigError: a bad task config or run setting.
    """
    typed = task_config(task, config)
    unique = {(choice.spec, choice.settings.model_dump_json()): choice for choice in models}
    planned = []
    for choice in unique.values():
        try:
            parse_spec(choice.spec)
        except ConfigError as exc:
            planned.append(
                PlannedRun(model=choice.label, task=task_label or task, spec=None, problem=str(exc))
            )
            continue
        spec = make_spec(task, choice.spec, typed, choice.settings, label)
        planned.append(PlannedRun(model=choice.label, task=task_label or task, spec=spec))
    return planned


def batch_id(planned: Sequence[PlannedRun]) -> str:
    """A short hash of the batch's runs: the same models, tasks and settings, the same id."""
    keys = sorted(
        json.dumps(run_identity(run.spec.model_dump(mode="json")), sort_keys=True)
        if run.spec is not None
        else json.dumps([run.model, run.task])
        for run in planned
    )
    return hashlib.sha256("\n".join(keys).encode()).hexdigest()[:12]


class StoredRuns:
    """The store's runs, listed once for a whole batch (a store may hold thousands)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._runs = store.list_runs(limit=RUNS_SCANNED)

    def find(self, spec: RunSpec) -> RunRecord | None:
        """The stored run of this spec: the latest completed one, else the latest other.

        The record is read again, so its status is the store's now, not the listing's.
        """
        found = find_run(self._runs, spec)
        return None if found is None else self._store.get_run(found.id)

    def add(self, run_id: str) -> None:
        """A run this batch started: a later run of the same spec finds it."""
        if all(run.id != run_id for run in self._runs):
            self._runs.insert(0, self._store.get_run(run_id))


def preview(planned: Sequence[PlannedRun], store: Store) -> list[tuple[How, str | None]]:
    """What running the batch now would do with each run, and the stored run it would use."""
    stored_runs = StoredRuns(store)
    found: list[tuple[How, str | None]] = []
    for run in planned:
        stored = stored_runs.find(run.spec) if run.spec is not None else None
        if run.spec is None:
            found.append(("not started", None))
        elif stored is None:
            found.append(("new", None))
        else:
            found.append(("reused" if stored.status == "completed" else "resumed", stored.id))
    return found


class _Tracking:
    """Passes progress on, remembering the run id (a run that fails mid-way keeps its id)."""

    def __init__(self, inner: ProgressReporter) -> None:
        self.inner = inner
        self.run_id: str | None = None

    def start(self, run_id: str, total: int | None, already_done: int) -> None:
        self.run_id = run_id
        self.inner.start(run_id, total, already_done)

    def advance(self, failed: bool) -> None:
        self.inner.advance(failed)

    def finish(self) -> None:
        self.inner.finish()


async def run_batch(
    planned: Sequence[PlannedRun], store: Store, watcher: BatchWatcher
) -> BatchResult:
    """Run, resume or reuse every planned run in order; a failing run never stops the rest.

    Cancellation (Ctrl-C) is not caught: the run in progress is stored "interrupted", and the
    same batch started again resumes it.
    """
    rows: list[BatchRow] = []
    stored_runs = StoredRuns(store)
    for number, run in enumerate(planned, start=1):
        row = await _run_one(run, stored_runs, store, watcher, (number, len(planned)))
        if row.run_id is not None:
            stored_runs.add(row.run_id)
        rows.append(row)
        watcher.end(row)
    return BatchResult(batch_id=batch_id(planned), rows=rows, shard=batch_shard(planned))


def batch_shard(planned: Sequence[PlannedRun]) -> Shard | None:
    """The shard the batch's runs are, or None when they are whole runs.

    Every run of one batch gets the same `--shard`; a batch mixing shards is said to be none.
    """
    shards = {run.spec.shard for run in planned if run.spec is not None}
    return shards.pop() if len(shards) == 1 else None


async def _run_one(
    planned: PlannedRun,
    stored_runs: StoredRuns,
    store: Store,
    watcher: BatchWatcher,
    place: tuple[int, int],
) -> BatchRow:
    """One run of the batch, reused, resumed or started; `place` is (number, total)."""
    number, total = place
    spec = planned.spec
    if spec is None:
        watcher.begin(number, total, planned, "not started")
        return _unstarted(planned, planned.problem or "no spec")
    found = stored_runs.find(spec)
    if found is not None and found.status == "completed":
        watcher.begin(number, total, planned, "reused")
        return stored_row(store, planned, found.id, "reused")
    how: How = "new" if found is None else "resumed"
    progress = _Tracking(watcher.begin(number, total, planned, how))
    try:
        report = await evaluate(spec, store, progress, found.id if found else None)
    except RulebenchError as exc:
        return _failed(store, planned, progress.run_id or _id(found), how, str(exc))
    except Exception as exc:  # a bug in one run must not cost the others their results
        logger.warning("%s on %s: unexpected error", planned.task, planned.model, exc_info=True)
        problem = f"internal error: {type(exc).__name__}: {exc}"
        return _failed(store, planned, progress.run_id or _id(found), how, problem)
    row = stored_row(store, planned, report.run.id, how)
    return row.model_copy(update={"wall_s": report.wall_s})


def stored_row(store: Store, planned: PlannedRun, run_id: str, how: How) -> BatchRow:
    """A run's row from the store: its status, why it did not complete, its overall numbers."""
    run = store.get_run(run_id)
    status = store.effective_status(run)
    reason = run.notes.get("reason")
    return BatchRow(
        model=planned.model,
        task=planned.task,
        run_id=run.id,
        status=status,
        how=how,
        summary=summarize(store.tally_results(run.id), grouped=False)[-1],
        problem=str(reason) if status != "completed" and reason else None,
    )


def _id(run: RunRecord | None) -> str | None:
    return None if run is None else run.id


def _failed(
    store: Store, planned: PlannedRun, run_id: str | None, how: How, problem: str
) -> BatchRow:
    if run_id is None:
        return _unstarted(planned, problem)
    row = stored_row(store, planned, run_id, how)
    return row.model_copy(update={"problem": problem})


def _unstarted(planned: PlannedRun, problem: str) -> BatchRow:
    return BatchRow(
        model=planned.model,
        task=planned.task,
        run_id=None,
        status="not started",
        how="not started",
        problem=problem,
    )
