"""The worker thread local backends share: admits, picks, runs, and never strands a caller."""

import threading
from concurrent.futures import Future
from dataclasses import dataclass, field

import pytest

from rulebench.core.errors import ModelError
from rulebench.models.job_worker import JobWorker


@dataclass
class Echo:
    text: str
    future: Future[str] = field(default_factory=Future)


class Upper(JobWorker[Echo]):
    """Upper-cases texts in batches of two; refuses texts starting with "!" on arrival."""

    label = "test"

    def __init__(self, gate: threading.Event | None = None) -> None:
        self.gate = gate
        self.batches: list[list[str]] = []
        super().__init__("test-worker")

    def admit(self, job: Echo) -> None:
        if job.text.startswith("!"):
            raise ValueError("refused")

    def pick(self, waiting: list[Echo]) -> list[Echo]:
        return waiting[:2]

    def run(self, jobs: list[Echo]) -> None:
        if self.gate is not None:
            self.gate.wait()
        self.batches.append([job.text for job in jobs])
        for job in jobs:
            job.future.set_result(job.text.upper())


def test_jobs_run_in_picked_batches_and_a_refused_one_fails_alone() -> None:
    gate = threading.Event()
    worker = Upper(gate)
    jobs = [Echo(text) for text in ("a", "!b", "c", "d", "e")]
    for job in jobs:
        worker.submit(job)
    gate.set()
    assert [job.future.result(timeout=10) for job in jobs if job.text != "!b"] == list("ACDE")
    with pytest.raises(ModelError, match="test: ValueError"):
        jobs[1].future.result(timeout=10)
    assert all(len(batch) <= 2 for batch in worker.batches)
    worker.close()


def test_closing_fails_every_queued_job_and_refuses_new_ones() -> None:
    gate = threading.Event()
    worker = Upper(gate)
    jobs = [Echo(str(i)) for i in range(5)]
    for job in jobs:
        worker.submit(job)
    closer = threading.Thread(target=worker.close)
    closer.start()
    while not worker.closed:
        threading.Event().wait(0.01)
    gate.set()  # the running batch finishes; the rest must fail, not hang
    closer.join(timeout=10)
    outcomes = [job.future.exception(timeout=10) for job in jobs]
    failed = [o for o in outcomes if isinstance(o, ModelError) and "freed" in str(o)]
    assert len(failed) >= 3  # at most the first batch of two ran
    with pytest.raises(ModelError, match="test: the model was freed"):
        worker.submit(Echo("late"))


class Broken(JobWorker[Echo]):
    def on_start(self) -> None:
        raise RuntimeError("no such model file")

    def run(self, jobs: list[Echo]) -> None:
        raise AssertionError("a worker that failed to start runs nothing")


def test_a_start_that_fails_is_reported_and_the_worker_takes_nothing() -> None:
    worker = Broken("broken")
    with pytest.raises(RuntimeError, match="no such model file"):
        worker.started.result(timeout=10)
    with pytest.raises(ModelError):
        worker.submit(Echo("x"))
