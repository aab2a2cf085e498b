"""The options of `rulebench train compare` as a front end takes them, and what it says.

`prepare_compare` turns the options into the comparison's `StudyConfig` (its defaults where
an option is left out) and its two sides, and composes the line said before the runs, so the
command line and a Python caller measure the same things and say the same.
"""

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from rulebench.core.validation import validate_labelled
from rulebench.study.irft import PARTS, Contender, StudyConfig, StudyResult, contender

TABLE_TITLE = "IRFT before/after (accuracy %, tuned - base in points)"
"""The title of the comparison's table."""


class CompareOptions(BaseModel):
    """The options of `train compare`: each None (empty, False) unless given.

    A field's docstring is its option's help (`use_attribute_docstrings`); an option left
    out takes `StudyConfig`'s default.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    data: Path | None = None
    """IRFT data folder whose test splits are measured. Default: the tuned run's."""
    data_root: Path | None = None
    """Official RuleBench data (holds clutrr/, ...). Without it: generated kinship."""
    tasks: tuple[str, ...] = ()
    """RuleBench task, repeatable. Default: the factual official datasets present."""
    per_group: int | None = Field(
        default=None,
        ge=1,
        description="Items per StringGame test split, per RuleBench task and benign cases per "
        "scenario behavior. Default: each part's own ("
        + ", ".join(str(StudyConfig.model_fields[part].default) for part in PARTS)
        + ").",
    )
    parts: dict[str, int | None] = {}
    """Counts of single parts by `StudyConfig` field (`PARTS`), beside `per_group` (the old
    options' spellings); None for `scenarios_per_group` is the whole suite."""
    no_rulebench: bool = False
    """Skip the RuleBench tasks."""
    no_scenarios: bool = False
    """Skip the benign scenarios control."""
    max_tokens: int | None = None
    concurrency: int | None = None
    output: Path | None = None


class PreparedCompare(NamedTuple):
    """A comparison made from options: its config, its sides, the line said before it."""

    config: StudyConfig
    base: Contender
    tuned: Contender
    line: str


def prepare_compare(
    options: CompareOptions, base: str, tuned: str, label: Callable[[str], str] = str
) -> PreparedCompare:
    """The comparison's validated config and its two sides, read from what the user typed.

    Args:
        options: the options given.
        base: the model before tuning (a spec).
        tuned: the tuned model: a `train irft` folder, an adapter or merged folder, a spec.
        label: how an error names a config field (the CLI spells it as its option).

    Raises:
        ConfigError: a value the config refuses, or a side that names no model.
    """
    given: dict[str, object] = {
        "data": options.data, "data_root": options.data_root,
        "tasks": options.tasks or None, "per_group": options.per_group,
        "max_tokens": options.max_tokens, "concurrency": options.concurrency,
        "output": options.output,
    }  # fmt: skip
    values = {name: value for name, value in given.items() if value is not None}
    values |= options.parts
    values |= {"rulebench": not options.no_rulebench, "scenarios": not options.no_scenarios}
    config = validate_labelled(StudyConfig, values, label)
    before = contender("base", base)
    after = contender("tuned", tuned, before)
    return PreparedCompare(config, before, after, settings_line(config, before, after))


def settings_line(config: StudyConfig, base: Contender, tuned: Contender) -> str:
    """The two sides and how much of each part is measured, said before the runs."""
    cases = config.scenarios_per_group or "all"
    return (
        f"base {base.describe()}; tuned {tuned.describe()}; StringGame "
        f"{config.stringgame_per_group} per split, RuleBench {config.rulebench_per_group} per "
        f"task, benign cases per behavior: {cases if config.scenarios else 'skipped'}"
    )


def unfinished_lines(result: StudyResult) -> list[str]:
    """One warning per side run that did not complete (its rows are missing from the table)."""
    return [
        f"run {run.run_id} ({run.measurement}, {run.side}) is {run.status}"
        for run in result.runs
        if run.status != "completed"
    ]


def written_line(paths: list[Path]) -> str:
    """The files the comparison wrote."""
    return "written: " + ", ".join(str(path) for path in paths)
