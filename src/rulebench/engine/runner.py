"""One asyncio runner for every item kind: bounded concurrency, streaming results, clean resume."""

import asyncio
import contextlib
import logging
import operator
import time
from collections.abc import Iterable, Iterator, Sized
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_serializer

from rulebench.core.credentials import redact_url
from rulebench.core.errors import DataError, ModelError, RulebenchError
from rulebench.core.items import Item, ItemResult
from rulebench.core.messages import GenerateConfig
from rulebench.core.shards import Shard
from rulebench.engine.dispatch_order import DispatchOrder, in_dispatch_order
from rulebench.engine.item_queue import ItemQueue, shard_notes
from rulebench.engine.model_hooks import model_notes, worker_count
from rulebench.engine.store.cache import ResponseCache
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord, RunStatus
from rulebench.engine.store.writer import StoreWriter
from rulebench.engine.task import Session, Task
from rulebench.models.base import Model

logger = logging.getLogger(__name__)


class RunSpec(BaseModel):
    """Everything a run was started with; stored with it so `--resume` can rebuild it exactly."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    task_config: dict[str, JsonValue] = Field(default_factory=dict)
    model: str
    model_args: dict[str, str] = Field(default_factory=dict)
    base_url: str | None = None
    """The endpoint override; stored and shown with user:password and query values as ***."""
    generate: GenerateConfig = GenerateConfig()
    concurrency: int = Field(default=8, ge=1)
    adaptive_concurrency: bool = False
    """No concurrency was given: a backend that measures its server (openai, openai-api)
    starts at `concurrency` and moves it by the server's answers (`models.adaptive_limit`), up
    to its max_connections; other backends keep `concurrency`."""
    limit: int | None = Field(default=None, ge=0)
    """Run only the first `limit` items (applied before skipping finished ones on resume)."""
    use_cache: bool = True
    max_consecutive_errors: int = Field(default=200, ge=1)
    """Stop the run (resumable) after this many errors in a row: the model is down, not flaky."""
    stop_after_same: int = Field(default=5, ge=1)
    """Stop the run (resumable) when this many first items all fail with one and the same
    error (a server answering every request with 400 or 404), instead of failing them all."""
    shard: Shard | None = None
    """Run only this piece of the items (after `limit`); the rest of the spec is the whole
    run's, which `runs merge` joins the shards back into."""

    order: DispatchOrder = "given"
    """The order the items are sent in (`engine.dispatch_order`); stored, so a resume sends
    the rest in the same order, but not what makes two runs different runs."""

    def with_concurrency(self, concurrency: int) -> "RunSpec":
        """This spec at a concurrency given by the user: fixed, no longer found by the run."""
        return self.model_copy(update={"concurrency": concurrency, "adaptive_concurrency": False})

    @field_serializer("base_url")
    def _redact_url(self, base_url: str | None) -> str | None:
        # Every dump is for storing or showing: a URL's password or query key is a secret.
        return None if base_url is None else redact_url(base_url)


class ProgressReporter(Protocol):
    """Where the runner reports progress; the CLI draws it, tests and libraries may ignore it."""

    def start(self, run_id: str, total: int | None, already_done: int) -> None:
        """Run `run_id` begins: `total` items (None if unknown), `already_done` from before."""
        ...

    def advance(self, failed: bool) -> None:
        """One more item finished (`failed`: it ended in an error)."""
        ...

    def finish(self) -> None:
        """The run stopped, for whatever reason."""
        ...


class NoProgress:
    """A reporter that shows nothing."""

    def start(self, run_id: str, total: int | None, already_done: int) -> None:
        """Ignore."""

    def advance(self, failed: bool) -> None:
        """Ignore."""

    def finish(self) -> None:
        """Ignore."""


class RunReport(BaseModel):
    """How one invocation of a run went (a resumed run has several)."""

    model_config = ConfigDict(frozen=True)

    run: RunRecord
    completed_now: int
    errors_now: int
    cache_hits_now: int = 0
    """Replies this invocation took from the cache (a resumed run's earlier ones not counted)."""
    skipped: int
    """Items finished by an earlier invocation and not run again."""
    wall_s: float


class TooManyErrors(ModelError):
    """Raised to stop a run whose model keeps failing."""


@dataclass
class _Invocation:
    """What the workers of one invocation share."""

    task: Task
    model: Model
    spec: RunSpec
    run_id: str
    writer: StoreWriter
    cache: ResponseCache | None
    completed: int = 0
    errors: int = 0
    cache_hits: int = 0
    consecutive_errors: int = 0
    first_error: str | None = None
    """The kind of failure every item so far ended in, while no item has succeeded; else None."""
    same_first_errors: int = 0

    def count(self, result: ItemResult, kind: str | None) -> None:
        """Account for one finished item, raising TooManyErrors when the model is clearly down.

        `kind` is the failure's kind (`failure_kind`), None for a success: error texts may
        quote the reply, which differs from item to item even when the server is plainly broken.
        """
        failed = result.error is not None
        self.completed += 1
        self.errors += failed
        self.cache_hits += result.cache_hits
        self.consecutive_errors = self.consecutive_errors + 1 if failed else 0
        if self.completed == 1 and failed:
            self.first_error = kind
        if self.first_error is not None and kind == self.first_error:
            self.same_first_errors += 1
        else:
            self.first_error = None
        if self.first_error is not None and self.same_first_errors >= self.spec.stop_after_same:
            raise TooManyErrors(
                f"stopped: the first {self.same_first_errors} items all failed the same way "
                f"(the run can be resumed): {result.error}"
            )
        if self.consecutive_errors >= self.spec.max_consecutive_errors:
            raise TooManyErrors(
                f"stopped after {self.consecutive_errors} errors in a row "
                f"(the run can be resumed); last: {result.error}"
            )


def completion_verdict(statuses: dict[str, str], item_ids: set[str]) -> tuple[RunStatus, str]:
    """The run's status and reason: completed only when every item has a result without error."""
    if not item_ids:
        return "failed", "the task has no items"
    missing = sum(item_id not in statuses for item_id in item_ids)
    errors = sum(statuses.get(item_id) == "error" for item_id in item_ids)
    total = len(item_ids)
    if missing:
        return "failed", (
            f"{missing} of {total} items have no stored result (resume the run to finish them)"
        )
    if errors:
        return "failed", (
            f"{errors} of {total} items ended in an error (resume the run to retry them)"
        )
    return "completed", ""


class Runner:
    """Runs a task's items against a model and streams every result into the store."""

    def __init__(
        self,
        store: Store,
        progress: ProgressReporter | None = None,
        order: DispatchOrder | None = None,
    ) -> None:
        self.store = store
        self.progress = progress or NoProgress()
        self.order = order
        """The order items are sent in (`engine.dispatch_order`) in place of the spec's."""

    async def run(
        self, task: Task, model: Model, spec: RunSpec, resume_id: str | None = None
    ) -> RunReport:
        """Run (or resume) and return how it went; the results are in the store.

        The run is recorded "completed" only once every result is committed and every item
        has one without error; otherwise "failed" with the reason (or "interrupted"), and
        `--resume` finishes it.
        """
        check_settings = getattr(model, "check_generate_config", None)
        if check_settings is not None:  # settings the model's API refuses: one error, no run
            check_settings(spec.generate)
        check = getattr(model, "check_reachable", None)
        if check is not None:
            await check()
        items = task.items()
        if isinstance(items, Sized) and not len(items):
            raise DataError(f"task {spec.task} has no items to run (is its data file empty?)")
        if resume_id:
            run = self.store.reopen_run(resume_id)
        else:
            run = self.store.create_run(spec.task, spec.model, spec.model_dump(mode="json"))
        started = time.perf_counter()
        state, done = self._start(run.id, task, model, spec, resumed=bool(resume_id))
        # A shard's share of the whole is known only once every item has been hashed.
        total = None if spec.shard is not None else _total(items, spec.limit)
        queue = ItemQueue(items, done, spec.limit, spec.shard)
        status: RunStatus = "failed"
        reason = ""
        self.progress.start(run.id, total, len(done))
        try:
            if total is not None:  # the explorer's live page shows it, with an ETA
                self.store.note_total(run.id, total)
            await self._work_all(state, in_dispatch_order(queue, self.order or spec.order))
            status, reason = self._verdict(run.id, queue)
        except asyncio.CancelledError:
            status, reason = "interrupted", "stopped by the user"
            raise
        except BaseException as exc:
            reason = _reason(exc)
            raise
        finally:
            notes = self._notes(run.id, model, reason) | shard_notes(spec.shard, queue)
            self.store.finish_run(run.id, status, notes)
        return RunReport(
            run=self.store.get_run(run.id),
            completed_now=state.completed,
            errors_now=state.errors,
            cache_hits_now=state.cache_hits,
            skipped=len(done),
            wall_s=time.perf_counter() - started,
        )

    def _start(
        self, run_id: str, task: Task, model: Model, spec: RunSpec, resumed: bool
    ) -> tuple[_Invocation, set[str]]:
        """Read what the run starts from: finished items, the cache; start the writer.

        A store refused here (a damaged page, say) leaves no run behind, as an unreachable
        server does: left "running", the run would read "killed". A resumed run stays, failed
        with the reason.
        """
        writer: StoreWriter | None = None
        try:
            done = self.store.finished_item_ids(run_id)
            writer = self.store.writer()
            identity = model.info.identity
            cache = self.store.response_cache(writer, run_id, identity) if spec.use_cache else None
        except BaseException as exc:
            if writer is not None:
                with contextlib.suppress(RulebenchError):
                    writer.close()
            with contextlib.suppress(RulebenchError):  # the store's own error says more
                if resumed:
                    self.store.finish_run(run_id, "failed", model_notes(model, _reason(exc)))
                else:
                    self.store.discard_run(run_id)
            raise
        return _Invocation(task, model, spec, run_id, writer, cache), done

    def _verdict(self, run_id: str, queue: ItemQueue) -> tuple[RunStatus, str]:
        """How the run ended, from what the store holds once every result is committed.

        Before a run is called completed, the store is read back whole: a page damaged while
        the run went on can go unseen by its connections, which keep the schema in memory
        and read few pages besides those they write.
        """
        if queue.is_empty_shard:
            return "completed", ""  # more shards than items: this one's share is none
        status, reason = completion_verdict(self.store.result_statuses(run_id), queue.seen)
        if status == "completed":
            self.store.check_intact()
        return status, reason

    async def _work_all(self, state: _Invocation, items: Iterator[Item]) -> None:
        """Run the workers, then commit every result (waiting out locks) before returning."""
        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(
                    worker_count(
                        state.model, state.spec.concurrency, state.spec.adaptive_concurrency
                    )
                ):
                    group.create_task(self._work(state, items))
        except BaseExceptionGroup as failure:
            # A worker raised (duplicate ids, a dead model, a failing store): surface that error.
            raise failure.exceptions[0] from None
        finally:
            self.progress.finish()
            state.writer.close()

    async def _work(self, state: _Invocation, queue: Iterator[Item]) -> None:
        for item in queue:
            session = Session(state.model, state.spec.generate, state.cache, item.id, item.repeat)
            result, kind = await solve_item(state.task, item, session)
            state.writer.put_result(state.run_id, result)
            self.progress.advance(result.error is not None)
            state.count(result, kind)

    def _notes(self, run_id: str, model: Model, reason: str) -> dict[str, JsonValue]:
        notes = model_notes(model, reason)
        merged = self.store.count_system_merged(run_id)
        if merged:
            notes["system_role_fallback"] = (
                f"{model.info.identity} has no system role: system messages were merged into the "
                f"first user turn ({merged} items)"
            )
        return notes


def _reason(exc: BaseException) -> str:
    """The reason stored for a run that ended in `exc`: our errors are written for users."""
    return str(exc) if isinstance(exc, RulebenchError) else repr(exc)


def _total(items: Iterable[Item], limit: int | None) -> int | None:
    """How many items the run has, if the task knows (for progress), capped by `limit`."""
    total = operator.length_hint(items, 0) or None
    if total is not None and limit is not None:
        total = min(total, limit)
    return total


async def solve_item(task: Task, item: Item, session: Session) -> tuple[ItemResult, str | None]:
    """Solve one item, returning its result and, if it failed, the kind of failure.

    A failure becomes the item's recorded error, never a wrong answer.
    """
    try:
        outcome = await task.solve(item, session)
    except ModelError as exc:
        error = str(exc)
        return session.result(item, None, error), failure_kind(exc, error)
    except RulebenchError as exc:
        error = f"{type(exc).__name__}: {exc}"
        return session.result(item, None, error), failure_kind(exc, error)
    except Exception as exc:
        logger.warning("item %s: unexpected %s", item.id, type(exc).__name__, exc_info=True)
        error = f"internal error: {type(exc).__name__}: {exc}"
        return session.result(item, None, error), failure_kind(exc, error)
    if session.system_merged:
        _warn_system_merge_once(session.model)
    return session.result(item, outcome, None), None


def failure_kind(exc: BaseException, error: str) -> str:
    """A failure's stable classification: exception class plus the backend's kind, if it gave one.

    Without a kind the recorded error text stands for itself, as two texts that differ may be
    two different failures.
    """
    if isinstance(exc, ModelError) and exc.kind is not None:
        return f"{type(exc).__name__}: {exc.kind}"
    return error


_warned_merge: set[str] = set()


def _warn_system_merge_once(model: Model) -> None:
    identity = model.info.identity
    if identity not in _warned_merge:
        _warned_merge.add(identity)
        logger.warning(
            "%s has no system role: system messages are merged into the first user turn "
            "(recorded with every result)",
            identity,
        )
