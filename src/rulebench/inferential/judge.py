"""The public entry: judge one reply to one sample of a task, in `paper` or `robust` mode."""

from collections.abc import Sequence
from typing import get_args

from rulebench.core.errors import ConfigError
from rulebench.core.rules import Sample
from rulebench.inferential.extraction import Judgement, Mode
from rulebench.inferential.registry import GENERATED, OFFICIAL, task_definition, task_names

TASKS: tuple[str, ...] = tuple(GENERATED | OFFICIAL)
"""The built-in task names `judge` knows (plugins' too: `registry.task_names()`)."""


def robust_fixes() -> dict[str, list[str]]:
    """Task name -> names of the quirk fixes robust mode applies (each a documented function)."""
    return {task: list(task_definition(task).judges.fixes) for task in task_names()}


def judge(
    task: str,
    reply: str,
    sample: Sample,
    mode: Mode,
    charges: Sequence[str] = (),
) -> Judgement:
    """Read the answer out of `reply` and decide whether it matches `sample.gold`.

    Args:
        task: the task's name (see `registry.task_names()`); it picks the reading, so a
            counterfactual sample is judged as its task's `-cf` variant only when that name
            is passed.
        reply: the model's raw reply, exactly as stored.
        sample: the question; its gold (already the counterfactual gold where that applies)
            and candidates are used.
        mode: `paper` for the released scorer's decisions, `robust` for the fixed reading.
        charges: law and law-cf only: every charge name (all law gold labels, train and test),
            which paper mode's deletion walk needs; when empty, the sample's candidates and
            gold stand in (see `law`). Ignored by other tasks.

    Raises:
        ConfigError: the task or mode is unknown.
    """
    judges = task_definition(task).judges
    if mode not in get_args(Mode):
        raise ConfigError(f"unknown extraction mode {mode!r}; known modes: paper, robust")
    chosen = judges.paper if mode == "paper" else judges.robust
    return chosen(reply, sample, charges)
