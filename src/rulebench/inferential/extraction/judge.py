"""The public entry: judge one reply to one sample of a task, in `paper` or `robust` mode."""

import difflib
from collections.abc import Callable, Sequence
from typing import NamedTuple, get_args

from rulebench.core.errors import ConfigError
from rulebench.core.rules import Sample
from rulebench.inferential.extraction import (
    deer,
    kinship_labels,
    law,
    salad,
    stringgame,
    theoremqa,
    ulogic,
)
from rulebench.inferential.extraction.base import Judgement, Mode

SampleJudge = Callable[[str, Sample], Judgement]
TaskJudge = Callable[[str, Sample, Sequence[str]], Judgement]
"""One mode's judging for one task: reply, sample and the law charge list (others ignore it)."""


class _TaskJudges(NamedTuple):
    paper: TaskJudge
    robust: TaskJudge
    fixes: tuple[str, ...]


def _without_charges(judge_sample: SampleJudge) -> TaskJudge:
    def judge_task(reply: str, sample: Sample, charges: Sequence[str]) -> Judgement:
        return judge_sample(reply, sample)

    return judge_task


def _sample_judges(paper: SampleJudge, robust: SampleJudge, fixes: tuple[str, ...]) -> _TaskJudges:
    return _TaskJudges(_without_charges(paper), _without_charges(robust), fixes)


_KINSHIP = _sample_judges(
    kinship_labels.judge_paper, kinship_labels.judge_robust, kinship_labels.ROBUST_FIXES
)
_SALAD = _sample_judges(salad.judge_paper, salad.judge_robust, salad.ROBUST_FIXES)
_ULOGIC = _sample_judges(ulogic.judge_paper, ulogic.judge_robust, ulogic.ROBUST_FIXES)

_JUDGES: dict[str, _TaskJudges] = {
    "kinship": _KINSHIP,
    "clutrr": _KINSHIP,
    "clutrr-cf": _KINSHIP,
    "salad": _SALAD,
    "salad-cf": _SALAD,
    "deer": _sample_judges(deer.judge_paper, deer.judge_robust, deer.ROBUST_FIXES),
    "theoremQA": _sample_judges(
        theoremqa.judge_paper, theoremqa.judge_robust, theoremqa.ROBUST_FIXES
    ),
    "ulogic": _ULOGIC,
    "ulogic-cf": _ULOGIC,
    "law": _TaskJudges(law.judge_paper, law.judge_robust, law.LAW_FIXES),
    "law-cf": _TaskJudges(law.judge_paper_cf, law.judge_robust_cf, law.LAW_CF_FIXES),
    "stringgame": _sample_judges(
        stringgame.judge_paper, stringgame.judge_robust, stringgame.ROBUST_FIXES
    ),
}

TASKS: tuple[str, ...] = tuple(_JUDGES)
"""Every task name `judge` knows."""

ROBUST_FIXES: dict[str, list[str]] = {task: list(judges.fixes) for task, judges in _JUDGES.items()}
"""Task name -> names of the quirk fixes robust mode applies (each a documented function)."""


def _task_judges(task: str) -> _TaskJudges:
    if task in _JUDGES:
        return _JUDGES[task]
    close = difflib.get_close_matches(task, TASKS, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ConfigError(f"unknown task {task!r}{hint}; known tasks: {', '.join(TASKS)}")


def judge(
    task: str,
    reply: str,
    sample: Sample,
    mode: Mode,
    charges: Sequence[str] = (),
) -> Judgement:
    """Read the answer out of `reply` and decide whether it matches `sample.gold`.

    Args:
        task: the task's name (see `TASKS`); it picks the reading, so a counterfactual sample
            is judged as its task's `-cf` variant only when that name is passed.
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
    judges = _task_judges(task)
    if mode not in get_args(Mode):
        raise ConfigError(f"unknown extraction mode {mode!r}; known modes: paper, robust")
    chosen = judges.paper if mode == "paper" else judges.robust
    return chosen(reply, sample, charges)
