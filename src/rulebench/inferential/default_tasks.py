"""Which of the default tasks a run's options apply to, when the user named no task.

A data root named without tasks means the release's datasets found there. Some options exist
only for some tasks: log-likelihood scoring needs candidate answers, and
counterfactual-only settings need a counterfactual form; StringGame has neither. A user who
names a task gets a refusal (`check_scoring`, `settings_for`); a user who named none asked for
the option, not for StringGame, so the run keeps the default tasks that support it and says
which it left out.
"""

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from rulebench.core.errors import ConfigError
from rulebench.inferential.data import load_task
from rulebench.inferential.registry import OFFICIAL, task_definition
from rulebench.inferential.settings import Grid, has_counterfactual_form
from rulebench.inferential.solving import LOGLIK_SCORINGS


def release_tasks(data_root: Path) -> tuple[str, ...]:
    """The release's datasets found under a data root (their folders), in the registry's order.

    A data root given without `-t` means the release's datasets: running the generated
    defaults instead would ignore it while the run's record names it.

    Raises:
        ConfigError: the folder holds none of them.
    """
    found = tuple(name for name in OFFICIAL if (data_root / name).is_dir())
    if not found:
        raise ConfigError(
            f"--data-root {data_root} holds none of the release's datasets "
            f"({', '.join(OFFICIAL)}): give the release's data folder (<clone>/dataset), "
            "or name tasks with -t"
        )
    return found


class LeftOut(NamedTuple):
    """A default task a run leaves out, and why: what each option it cannot honour needs."""

    task: str
    reasons: tuple[str, ...]


def unsupported_by(task: str, scoring: str, grid: Grid) -> tuple[str, ...]:
    """What `task` lacks for the options given, one phrase per option (empty: it has all)."""
    reasons = []
    if scoring in LOGLIK_SCORINGS and not task_definition(task).has_candidates:
        reasons.append(f"--scoring {scoring} needs candidate answers")
    if grid.counterfactual == (True,) and not _has_counterfactual_form(task):
        reasons.append("--counterfactual on needs a counterfactual form")
    return tuple(reasons)


def fit_default_tasks(
    tasks: Sequence[str], scoring: str, grid: Grid
) -> tuple[tuple[str, ...], list[LeftOut]]:
    """The default tasks that support the options, and those left out.

    Raises:
        ConfigError: no default task supports them (naming the first option).
    """
    kept: list[str] = []
    left_out: list[LeftOut] = []
    for task in tasks:
        reasons = unsupported_by(task, scoring, grid)
        if reasons:
            left_out.append(LeftOut(task, reasons))
        else:
            kept.append(task)
    if not kept and left_out:
        raise ConfigError(
            f"no default task can run as asked ({describe_left_out(left_out)}): name a task "
            "that can with -t"
        )
    return tuple(kept), left_out


def describe_left_out(left_out: Sequence[LeftOut]) -> str:
    """The default tasks a run leaves out, and why, in one phrase."""
    return "; ".join(f"{entry.task}: {', '.join(entry.reasons)}" for entry in left_out)


def _has_counterfactual_form(task: str) -> bool:
    """Whether a default (generated) task can be asked counterfactually: ask one sample."""
    definition = task_definition(task)
    if definition.generate is None:  # an official set: only its -cf dataset is counterfactual
        return task.endswith("-cf")
    return has_counterfactual_form(load_task(task, 1, 0, None))
