"""Collected cases played against another model, in the background, with progress.

A visitor picks a model (one the server allows) and the collected cases (optionally
filtered); each case is replayed as `run scenarios` plays it (`PlaySession.replay`: its
record's protocol and reply limit), with the store's cache read-only, one case after another,
so the page shows progress and then each case's verdict. Nothing is stored: the page names
the `rulebench run scenarios -s FILE -m SPEC` command that makes them a stored run
(`collected_command`).
"""

import asyncio
import threading
from dataclasses import dataclass, field
from pathlib import Path

from rulebench.core.cases import TestCase, Verdict
from rulebench.core.errors import RulebenchError
from rulebench.engine.store.cache import StoredReplies
from rulebench.engine.task import Session
from rulebench.models.base import Model
from rulebench.scenarios.play import PlaySession
from rulebench.scenarios.played import record_of, replayed_generation, replayed_protocol
from rulebench.scenarios.protocol import Protocol
from rulebench.scenarios.registry import scenario_class
from rulebench.web.playground.quotas import QuotaExceeded
from rulebench.web.playground.saved_cases import user_turns
from rulebench.web.playground.state import Playground, new_token

MAX_JOBS = 50
"""Jobs kept in memory (finished ones first forgotten past that)."""
MAX_RUNNING_PER_VISITOR = 2
"""Jobs one visitor may have playing at once (each keeps a model busy)."""
QUOTA_POLL_S = 1.0
"""How often a job waiting for the visitor's call quota asks again."""


@dataclass
class CaseOutcome:
    """One case's result in a job."""

    file: str
    case: TestCase
    passed: bool | None = None
    reason: str = ""


@dataclass
class CollectedRun:
    """A background job: the cases, the model, and what came back so far."""

    id: str
    visitor: str
    model: str
    outcomes: list[CaseOutcome]
    done: int = 0
    finished: bool = False
    waiting: bool = False
    """Whether the next case waits for the visitor's model-call window to free."""
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    @property
    def broke(self) -> int:
        """Cases whose replies broke a rule."""
        return sum(o.passed is False and not o.reason.startswith("error") for o in self.outcomes)


class CollectedRuns:
    """The app's jobs, by id, each visible to the visitor that started it only."""

    def __init__(self) -> None:
        self._jobs: dict[str, CollectedRun] = {}
        self._lock = threading.Lock()

    def start(
        self, playground: Playground, store: Path, job: CollectedRun, model: Model
    ) -> CollectedRun:
        """Start replaying the job's cases against `model` in the background.

        QuotaExceeded when the visitor has too many playing, or every slot holds a job still
        playing: a running job is never dropped.
        """
        with self._lock:
            running = [j for j in self._jobs.values() if not j.finished]
            if sum(j.visitor == job.visitor for j in running) >= MAX_RUNNING_PER_VISITOR:
                raise QuotaExceeded(
                    f"this server plays at most {_runs(MAX_RUNNING_PER_VISITOR)} of collected "
                    "cases at a time for a visitor: wait until yours ends"
                )
            if len(self._jobs) >= MAX_JOBS:
                finished = [j for j in self._jobs.values() if j.finished]
                if not finished:
                    raise QuotaExceeded(
                        f"{_runs(MAX_JOBS)} of collected cases are playing on this server: "
                        "try again when one ends"
                    )
                del self._jobs[finished[0].id]
            self._jobs[job.id] = job
        job.task = playground.run_in_background(
            _play_all(playground, StoredReplies(store), job, model)
        )
        return job

    def find(self, job_id: str, visitor: str | None) -> CollectedRun | None:
        """The visitor's job with this id, or None."""
        with self._lock:
            job = self._jobs.get(job_id)
        return job if job is not None and visitor is not None and job.visitor == visitor else None


def _runs(count: int) -> str:
    return f"{count} run{'s' if count > 1 else ''}"


def new_job(visitor: str, spec: str, cases: list[tuple[str, TestCase]]) -> CollectedRun:
    """A job for `cases` (file name, case) against the model `spec`, not started yet."""
    return CollectedRun(new_token(), visitor, spec, [CaseOutcome(f, c) for f, c in cases])


async def _play_all(
    playground: Playground, cache: StoredReplies, job: CollectedRun, model: Model
) -> None:
    try:
        for outcome in job.outcomes:
            await _wait_for_calls(playground, job, user_turns(outcome.case))
            try:
                verdict = await _replay(playground, cache, model, outcome.case, job.id)
                outcome.passed, outcome.reason = verdict.passed, verdict.reason or ""
            except RulebenchError as exc:
                outcome.reason = playground.hide_secrets(f"error: {exc}")
            job.done += 1
    finally:
        job.finished = True


async def _wait_for_calls(playground: Playground, job: CollectedRun, calls: int) -> None:
    """Take the case's calls from the visitor's quota, waiting while the window is full.

    Charged case by case, so a job longer than a minute's allowance runs at its pace.
    """
    while (wait_s := playground.limits.model_call_wait_s(job.visitor, calls)) > 0:
        job.waiting = True
        await asyncio.sleep(min(wait_s, QUOTA_POLL_S))
    job.waiting = False


async def _replay(
    playground: Playground, cache: StoredReplies, model: Model, case: TestCase, job_id: str
) -> Verdict:
    record = record_of(case)
    base = playground.default_generation
    if record is None:
        protocol, config = Protocol(), base
    else:
        clone = playground.config.upstream
        protocol = replayed_protocol(record, Protocol(), [], clone)
        config = replayed_generation(record, base, [])
    scenario = scenario_class(case.scenario).from_params(case.params)
    session = Session(model, config, cache, f"{job_id}-{case.id}")
    return await PlaySession(scenario, session, protocol).replay(case)
