"""The command that resumes each kind of stored run the runner does not start."""

from rulebench.core.run_kinds import GCG_TASK, TRAINING_TASK

RESUMED_BY: dict[str, str] = {
    TRAINING_TASK: "rulebench train irft --resume {run_id}",
    GCG_TASK: "rulebench attack gcg --resume {run_id}",
}
"""Runs the runner does not start (`core.run_kinds.NOT_EVALUATIONS`), and their commands."""


def resume_command_of(task: str, run_id: str) -> str | None:
    """The command that resumes a tuning run or an attack; None for an evaluation."""
    template = RESUMED_BY.get(task)
    return None if template is None else template.format(run_id=run_id)
