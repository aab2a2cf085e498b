"""What a batch says as its runs go and at its end, as plain lines a front end shows.

The command line prints them (bold heading, red failures); a notebook or the web app can show
the same words, so a batch reads alike whichever started it.
"""

from collections.abc import Sequence

from rulebench.study.batch import BatchRow, How, PlannedRun


def run_heading(number: int, total: int, planned: PlannedRun, how: How) -> tuple[str, str]:
    """The line before run `number` of `total`: its count ("run 2 of 3:") and what it is."""
    resumed = " (resuming its stopped run)" if how == "resumed" else ""
    return f"run {number} of {total}:", f"{planned.model} on {planned.task}{resumed}"


def run_ending(row: BatchRow) -> str | None:
    """The line under a run once it is done with (None: nothing to add)."""
    if row.how == "reused":
        return f"completed earlier as run {row.run_id}: not run again"
    if row.status == "completed":
        return None if row.wall_s is None else f"completed in {row.wall_s:.1f}s"
    return f"{row.status}{_where(row)}: {row.problem or '-'}"


def incomplete_lines(failed: Sequence[BatchRow]) -> list[str]:
    """One line per run that did not complete: model, task, status and why."""
    return [
        f"{row.model} on {row.task}: {row.status}{_where(row)}: {row.problem or '-'}"
        for row in failed
    ]


RERUN_ADVICE = (
    "Run the same command again once the cause is fixed (a server down, a wrong spec): "
    "completed runs are not run again, stopped ones are resumed:"
)
"""Said after the runs that did not complete, before the command that goes on."""


def _where(row: BatchRow) -> str:
    return f" (run {row.run_id})" if row.run_id else ""
