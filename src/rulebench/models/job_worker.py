"""The one thread that alone runs a local model, fed by a queue of jobs.

llama.cpp and torch models are neither thread-safe nor cheap to call from the event loop, so
each local backend hands its calls to one worker thread. This module owns what they share: the
queue, waiting for work, and failing every queued call when the worker stops (for whatever
reason: no caller may wait forever on a dead thread). Each backend says how to admit a job
(tokenize it), which waiting jobs to run next (a batch, or the best prefix match) and how.
"""

import threading
from abc import ABC, abstractmethod
from concurrent.futures import Future
from typing import Any, Generic, Protocol, TypeVar

from rulebench.core.errors import ModelError, RulebenchError


class Job(Protocol):
    """A queued call: its future gets the result or the error."""

    future: Future[Any]


JobT = TypeVar("JobT", bound=Job)


class JobWorker(ABC, Generic[JobT]):
    """A queue of jobs and the thread that takes them; subclasses say how to run them."""

    label = "local model"
    """How errors name the backend ("hf", "llamacpp")."""
    closed_message = "the model was freed"

    def __init__(self, thread_name: str) -> None:
        self._pending: list[JobT] = []
        self._closed = False
        self._wakeup = threading.Condition()
        self.started: Future[None] = Future()
        """Done once `on_start` has run in the thread (its exception, if it failed)."""
        self._thread = threading.Thread(target=self._serve, name=thread_name, daemon=True)
        self._thread.start()

    @property
    def closed(self) -> bool:
        """Whether the worker has stopped taking jobs."""
        return self._closed

    def submit(self, job: JobT) -> None:
        """Queue a job; its future gets the result or the error."""
        with self._wakeup:
            if self._closed:
                raise ModelError(f"{self.label}: {self.closed_message}")
            self._pending.append(job)
            self._wakeup.notify()

    def close(self) -> None:
        """Fail what is still queued and stop the thread."""
        with self._wakeup:
            self._closed = True
            self._wakeup.notify()
        self._thread.join()

    # What a backend provides.

    def on_start(self) -> None:
        """Load what the thread alone may touch (runs first, in the worker thread)."""

    def on_stop(self) -> None:
        """Free it (runs last, in the worker thread)."""

    def admit(self, job: JobT) -> None:
        """Prepare an arrived job (e.g. tokenize); an exception fails that job alone."""

    def settle(self, waiting: list[JobT]) -> None:
        """A moment to let jobs sent together arrive before the next pick (default: none)."""

    def pick(self, waiting: list[JobT]) -> list[JobT]:
        """The waiting jobs to run next (removed from `waiting` by the caller)."""
        return waiting[:1]

    @abstractmethod
    def run(self, jobs: list[JobT]) -> None:
        """Run picked jobs, setting each one's future."""

    # The loop.

    def _serve(self) -> None:
        try:
            self.on_start()
        except BaseException as exc:  # reported to whoever waits on `started`
            self._closed = True
            self.started.set_exception(exc)
            return
        self.started.set_result(None)
        waiting: list[JobT] = []
        try:
            while self._wait_for_work(waiting):
                self.settle(waiting)
                if not self._wait_for_work(waiting, block=False):
                    break
                picked = self.pick(waiting)
                for job in picked:
                    waiting.remove(job)
                self.run([job for job in picked if job.future.set_running_or_notify_cancel()])
        finally:
            with self._wakeup:
                self._closed = True
                waiting.extend(self._pending)
                self._pending.clear()
            for job in waiting:
                if not job.future.done():
                    job.future.set_exception(ModelError(f"{self.label}: {self.closed_message}"))
            self.on_stop()

    def _wait_for_work(self, waiting: list[JobT], block: bool = True) -> bool:
        """Move arrived jobs to `waiting`, admitted; wait for one if `block`. False once closed."""
        while True:
            with self._wakeup:
                while block and not self._pending and not waiting and not self._closed:
                    self._wakeup.wait()
                if self._closed:
                    return False
                arrived, self._pending = self._pending, []
            for job in arrived:
                try:
                    self.admit(job)
                except Exception as exc:
                    job.future.set_exception(self.as_model_error(exc))
                else:
                    waiting.append(job)
            if waiting or not block:
                return True

    def as_model_error(self, exc: Exception) -> RulebenchError:
        """Keep our own errors; wrap the library's so the runner records them as item errors."""
        return exc if isinstance(exc, RulebenchError) else ModelError(f"{self.label}: {exc!r}")
