"""The hf backend's worker thread: requests queue up and are generated in batches.

One thread owns the model, so torch never runs on the event loop nor twice at once. It takes
every waiting request that shares a GenerateConfig (up to max_batch_size), left-pads them and
generates them together; on a CPU that turns one request's ~19 tokens/s into several times that.
"""

import logging
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from rulebench.core.errors import ModelError, RulebenchError
from rulebench.core.messages import GenerateConfig
from rulebench.models import hf_compute
from rulebench.models.hf_compute import Generated
from rulebench.models.hf_loading import LoadedModel

logger = logging.getLogger(__name__)

ResultT = TypeVar("ResultT")

_GATHER_S = 0.005
"""How long the worker waits after a first request for others sent at the same moment (tasks
started together submit within microseconds), so they share its batch."""


@dataclass
class Job(Generic[ResultT]):
    """A queued request: the conversation as role/content dicts, and its answer slot."""

    messages: list[dict[str, str]]
    future: Future[ResultT] = field(default_factory=Future)


@dataclass
class GenerationJob(Job[Generated]):
    """Generate a reply; jobs with equal configs are batched together."""

    config: GenerateConfig = field(default_factory=GenerateConfig)
    ids: list[int] = field(default_factory=list)


@dataclass
class ScoringJob(Job[list[float]]):
    """Score candidate replies by log-likelihood (batched over the choices)."""

    choices: tuple[str, ...] = ()


@dataclass
class BatchStats:
    """Sizes of the generation batches the worker ran, in order; written by the worker only."""

    batch_sizes: list[int] = field(default_factory=list)


class HFWorker:
    """A loaded model and the one thread that runs it, fed by a queue of jobs."""

    def __init__(self, loaded: LoadedModel, max_batch_size: int) -> None:
        self.loaded = loaded
        self.max_batch_size = max_batch_size
        self.stats = BatchStats()
        self._pending: list[Job[Any]] = []
        self._closed = False
        self._wakeup = threading.Condition()
        self._thread = threading.Thread(target=self._serve, name="hf-worker", daemon=True)
        self._thread.start()

    @property
    def closed(self) -> bool:
        """Whether the worker has stopped taking jobs."""
        return self._closed

    def submit(self, job: Job[Any]) -> None:
        """Queue a job; its future gets the result or the error."""
        with self._wakeup:
            if self._closed:
                raise ModelError("hf: the model was freed")
            self._pending.append(job)
            self._wakeup.notify()

    def close(self) -> None:
        """Fail what is still queued and stop the thread."""
        with self._wakeup:
            self._closed = True
            self._wakeup.notify()
        self._thread.join()

    def _serve(self) -> None:
        try:
            while jobs := self._take():
                self._run(jobs)
        finally:
            # Also reached if the loop itself fails: no caller may wait forever on a dead thread.
            with self._wakeup:
                self._closed = True
                left, self._pending = self._pending, []
            for job in left:
                job.future.set_exception(ModelError("hf: the model was freed"))

    def _take(self) -> list[Job[Any]]:
        """Wait for work; return the next batch (one scoring job or like generation jobs)."""
        with self._wakeup:
            while not self._pending and not self._closed:
                self._wakeup.wait()
            crowded = len(self._pending) >= self.max_batch_size
        if not crowded:
            time.sleep(_GATHER_S)
        with self._wakeup:
            if self._closed:
                return []
            first = self._pending[0]
            if isinstance(first, GenerationJob):
                alike = [
                    j for j in self._pending
                    if isinstance(j, GenerationJob) and j.config == first.config
                ]  # fmt: skip
                batch: list[Job[Any]] = list(alike[: self.max_batch_size])
            else:
                batch = [first]
            self._pending = [j for j in self._pending if j not in batch]
            return batch

    def _run(self, jobs: list[Job[Any]]) -> None:
        ready = [job for job in jobs if job.future.set_running_or_notify_cancel()]
        ready = [job for job in ready if self._prepare(job)]
        if not ready:
            return
        try:
            results = self._compute(ready)
        except Exception as exc:
            error = exc if isinstance(exc, RulebenchError) else ModelError(f"hf: {exc!r}")
            for job in ready:
                job.future.set_exception(error)
        else:
            for job, result in zip(ready, results, strict=True):
                job.future.set_result(result)

    def _prepare(self, job: Job[Any]) -> bool:
        """Tokenize a generation job's prompt; fail the job alone if its template rejects it."""
        if not isinstance(job, GenerationJob):
            return True
        try:
            job.ids = hf_compute.encode(self.loaded, self.loaded.render(job.messages))
        # A chat template may reject a conversation (roles not alternating, ...) any way it likes.
        except Exception as exc:
            job.future.set_exception(
                ModelError(f"hf: the chat template rejected the conversation: {exc}")
            )
            return False
        return True

    def _compute(self, jobs: list[Job[Any]]) -> list[Any]:
        first = jobs[0]
        if isinstance(first, ScoringJob):
            prompt = self.loaded.render(first.messages)
            return [hf_compute.score(self.loaded, prompt, first.choices, self.max_batch_size)]
        generation = [job for job in jobs if isinstance(job, GenerationJob)]
        self.stats.batch_sizes.append(len(generation))
        logger.debug("generating a batch of %d", len(generation))
        prompts = [job.ids for job in generation]
        return list(hf_compute.generate(self.loaded, prompts, generation[0].config))
