"""Finding a stored run by what it asks, so running the same thing again picks it up.

A batch of runs and a STaR build both go on where an earlier invocation stopped: a completed
run is not run again, a stopped one is resumed. Both find that run by its spec, minus the
settings that change how a run goes but not what it asks.
"""

from collections.abc import Iterable, Mapping

from pydantic import JsonValue

from rulebench.engine.runner import RunSpec
from rulebench.engine.store.records import RunRecord

RUNS_SCANNED = 100_000
"""Stored runs searched for an earlier run of a spec, most recent first."""
NOT_IDENTITY = frozenset({
    "concurrency", "adaptive_concurrency", "base_url", "max_consecutive_errors",
    "stop_after_same", "order",
})  # fmt: skip
"""Spec fields that change how a run goes, not what it asks: a stored run that differs only in
these is the same run (the server moved, more requests in flight)."""


def run_identity(config: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """What makes two runs the same run: the spec without how it is run."""
    return {key: value for key, value in config.items() if key not in NOT_IDENTITY}


def find_run(runs: Iterable[RunRecord], spec: RunSpec) -> RunRecord | None:
    """The run of this spec among `runs` (most recent first), or None.

    The latest completed one wins; else the latest other (a stopped run, to resume).
    """
    wanted = run_identity(spec.model_dump(mode="json"))
    matching = [
        run
        for run in runs
        if run.task == spec.task and run.model == spec.model and run_identity(run.config) == wanted
    ]
    completed = [run for run in matching if run.status == "completed"]
    return next(iter(completed or matching), None)
