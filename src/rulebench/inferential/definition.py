"""What one inferential task is, declared once in the task's own module.

A `TaskDefinition` joins everything rulebench knows about a task: where its samples come from
(a generator, or a loader for the release's folder layout), the prompt template, how replies are
judged in paper and robust mode, how many rules its settings list, how many demonstrations the
paper gives it and its answer vocabulary. `rulebench.inferential.registry` finds definitions by
name; no other table lists tasks.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rulebench.core.rules import Sample, TaskData
from rulebench.inferential.extraction import Judgement
from rulebench.inferential.template import PromptTemplate

SampleJudge = Callable[[str, Sample], Judgement]
"""Judge a reply to a sample (most tasks need nothing else)."""
TaskJudge = Callable[[str, Sample, Sequence[str]], Judgement]
"""Judge a reply to a sample given the task's judging context (law: its charge list)."""
Generate = Callable[[int, int], TaskData]
"""Make n samples from a seed (a generated task)."""
LoadSplit = Callable[[Path, str, str], TaskData]
"""Read one split of an official dataset: (data root, dataset folder name, split)."""

DEFAULT_RULE_COUNTS = (3, 30)
"""Rules listed in all under "few" and "all" (golden included), for most tasks."""
DEFAULT_PAPER_SHOTS = 2
"""Demonstrations the paper's few-shot experiments give most tasks."""


@dataclass(frozen=True)
class Judges:
    """A task's two readings of a reply and the names of the fixes robust mode applies."""

    paper: TaskJudge
    """The released scorer's decisions, quirks included."""
    robust: TaskJudge
    """The fixed reading (each fix a named, tested step)."""
    fixes: tuple[str, ...]
    """Names of the quirk fixes, as `rulebench list` shows them."""


def sample_judges(paper: SampleJudge, robust: SampleJudge, fixes: tuple[str, ...]) -> Judges:
    """Judges for a task whose readings need only the reply and the sample."""

    def with_context(judge_sample: SampleJudge) -> TaskJudge:
        def judge_task(reply: str, sample: Sample, context: Sequence[str]) -> Judgement:
            return judge_sample(reply, sample)

        return judge_task

    return Judges(with_context(paper), with_context(robust), fixes)


@dataclass(frozen=True)
class TaskDefinition:
    """One inferential task: its data source, prompt, judging and paper settings."""

    name: str
    """The name users type (`-t clutrr-cf`); for official data, also the release's folder."""
    summary: str
    """One line for `rulebench list tasks`."""
    template: PromptTemplate
    judges: Judges
    generate: Generate | None = None
    """Set for a generated task (exactly one of `generate` and `load` is)."""
    load: LoadSplit | None = None
    """Set for an official dataset read from the user's copy of the release."""
    answers: tuple[str, ...] = ()
    """The closed answer vocabulary; empty when answers are open (numbers, charges)."""
    rule_counts: tuple[int, int] = DEFAULT_RULE_COUNTS
    """Rules listed under "few" and under "all" (golden included)."""
    paper_shots: int = DEFAULT_PAPER_SHOTS
    """Demonstrations in the paper's few-shot experiments."""
    judging_context: Callable[[Path], tuple[str, ...]] | None = None
    """What the paper scorer needs beside the sample, read from the data root (law's charge
    list); None for tasks that need nothing."""
    long_tail: bool = False
    """Whether the report shows the rare-label view for it (SALAD's categories)."""
    data_root: Path | None = None
    """Where `load` reads from when the task ships its own data (a plugin's package files);
    None: the user's --data-root."""
    has_candidates: bool = True
    """Whether its samples carry candidate answers, which log-likelihood scoring ranks;
    False for open answers (StringGame's numbers), where that scoring is refused."""

    @property
    def is_generated(self) -> bool:
        """Whether samples come from our generator rather than the release's files."""
        return self.generate is not None
