"""The options of `rulebench train star` as a front end takes them, turned into a STaR plan.

Round 1's run spec is built as for any run (`run_specs.make_spec`, the task's generation
defaults where the settings leave them open), so the command line, the Python API and an
experiment file ask the teacher the same questions with the same settings.
"""

from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from rulebench.engine.run_settings import RunSettings
from rulebench.engine.run_specs import make_spec
from rulebench.train.star import StarPlan
from rulebench.train.star_manifest import TeacherReasoning
from rulebench.train.star_task import MAX_ATTEMPTS, TASK


class StarOptions(BaseModel):
    """The options of `train star` beside the run settings: each None (False) unless given.

    Each field's docstring is its option's help (`use_attribute_docstrings`); an option left
    out takes `StarPlan`'s default (the seed: `RunSettings`').
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    teacher: str
    """Model spec of the teacher that writes the reasoning, e.g. openai/gpt-4o-mini, or
    openai-api/vllm/NAME for a vLLM server (see `rulebench models`)."""
    data: Path
    """A folder from `rulebench train data`."""
    output: Path
    """Folder to write (new or empty)."""
    attempts: int | None = Field(default=None, ge=1, le=MAX_ATTEMPTS)
    """Tries per example before it gets the plain target."""
    limit: int | None = Field(default=None, ge=1)
    """Use the first N training examples only."""
    teacher_reasoning: TeacherReasoning | None = None
    """keep or drop: whether a reasoning teacher's thinking opens a kept target, as its chain
    of thought, or is left out (the reply alone). Only the reply is judged either way; the
    rounds' runs are the same, so switching reuses them."""
    seed: int | None = None
    """Seed of the teacher's sampling; each attempt derives its own."""
    overwrite: bool = False
    """Replace an existing data folder."""


def prepare_star(
    options: StarOptions, settings: RunSettings, label: Callable[[str], str] = str
) -> StarPlan:
    """The build's plan: round 1's spec from the options and run settings, checked.

    Args:
        options: the options given.
        settings: the run settings (their `limit` and seed are the options').
        label: how an error names a run setting (the CLI spells it as its option).

    Raises:
        ConfigError: an unknown teacher provider, or a setting out of range (one line).
    """
    seeded = {"sampling_seed": options.seed} if options.seed is not None else {}
    settings = settings.model_copy(update={"limit": options.limit, **seeded})
    spec = make_spec(
        TASK,
        options.teacher,
        {"data": str(options.data)},
        settings,
        lambda field: "--teacher" if field == "model" else label(field),
    )
    given = {"attempts": options.attempts, "teacher_reasoning": options.teacher_reasoning}
    chosen = {name: value for name, value in given.items() if value is not None}
    return StarPlan(spec=spec, output=options.output, overwrite=options.overwrite, **chosen)
