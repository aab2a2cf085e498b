"""The hf backend's worker thread: requests queue up and are generated in batches.

One thread owns the model, so torch never runs on the event loop nor twice at once. It takes
every waiting request that shares a GenerateConfig (up to max_batch_size), left-pads them and
generates them together; even on a CPU that gives several times one request's tokens/s.
"""

import logging
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from rulebench.core.messages import GenerateConfig
from rulebench.models.base import ChoiceScores
from rulebench.models.hf import compute as hf_compute
from rulebench.models.hf.loading import LoadedModel
from rulebench.models.job_worker import JobWorker
from rulebench.models.local_chat import Generated

logger = logging.getLogger(__name__)

ResultT = TypeVar("ResultT")

_GATHER_S = 0.005
"""How long the worker waits after a first request for others sent at the same moment (tasks
started together submit within microseconds), so they share its batch."""


@dataclass
class Job(Generic[ResultT]):
    """A queued request: its prompt text, rendered by the model (chat template or transcript)."""

    prompt: str
    future: Future[ResultT] = field(default_factory=Future)


@dataclass
class GenerationJob(Job[Generated]):
    """Generate a reply; jobs with equal configs are batched together."""

    config: GenerateConfig = field(default_factory=GenerateConfig)
    ids: list[int] = field(default_factory=list)


@dataclass
class ScoringJob(Job[ChoiceScores]):
    """Score candidate replies by log-likelihood (batched over the choices)."""

    choices: tuple[str, ...] = ()


@dataclass
class BatchStats:
    """Sizes of the generation batches the worker ran, in order; written by the worker only."""

    batch_sizes: list[int] = field(default_factory=list)


class HFWorker(JobWorker[Job[Any]]):
    """A loaded model and the one thread that runs it, fed by a queue of jobs."""

    label = "hf"

    def __init__(self, loaded: LoadedModel, max_batch_size: int) -> None:
        self.loaded = loaded
        self.max_batch_size = max_batch_size
        self.stats = BatchStats()
        super().__init__("hf-worker")

    def admit(self, job: Job[Any]) -> None:
        """Tokenize a generation job's prompt."""
        if isinstance(job, GenerationJob):
            job.ids = hf_compute.encode(self.loaded, job.prompt)

    def settle(self, waiting: list[Job[Any]]) -> None:
        """Unless a batch is full already, give jobs sent together a moment to join it."""
        if len(waiting) < self.max_batch_size:
            time.sleep(_GATHER_S)

    def pick(self, waiting: list[Job[Any]]) -> list[Job[Any]]:
        """One scoring job, or the generation jobs that share the first one's config."""
        first = waiting[0]
        if not isinstance(first, GenerationJob):
            return [first]
        alike = [j for j in waiting if isinstance(j, GenerationJob) and j.config == first.config]
        return list(alike[: self.max_batch_size])

    def run(self, jobs: list[Job[Any]]) -> None:
        """Compute the batch; an error fails every job in it."""
        if not jobs:
            return
        try:
            results = self._compute(jobs)
        except Exception as exc:
            error = self.as_model_error(exc)
            for job in jobs:
                job.future.set_exception(error)
        else:
            for job, result in zip(jobs, results, strict=True):
                job.future.set_result(result)

    def _compute(self, jobs: list[Job[Any]]) -> list[Any]:
        first = jobs[0]
        if isinstance(first, ScoringJob):
            return [hf_compute.score(self.loaded, first.prompt, first.choices, self.max_batch_size)]
        generation = [job for job in jobs if isinstance(job, GenerationJob)]
        self.stats.batch_sizes.append(len(generation))
        logger.debug("generating a batch of %d", len(generation))
        prompts = [job.ids for job in generation]
        config = generation[0].config
        return list(hf_compute.generate(self.loaded, prompts, config, lambda: self.closed))
