"""`rulebench train star`: chain-of-thought IRFT targets, kept STaR-style from a teacher model."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.cli.field_options import field_keyword, field_option
from rulebench.cli.option_stack import OptionBlock, with_options
from rulebench.cli.reasoning_flags import (
    ReasoningEffortOption,
    ReasoningTagsOption,
    ThinkingOption,
)
from rulebench.cli.study_options import STUDY_DEFAULTS, StudyOptions, study_options
from rulebench.core.field_defaults import shown_default
from rulebench.engine.run_flags import join_base_urls, parse_model_args, reasoning_options
from rulebench.engine.run_settings import RunSettings
from rulebench.report.untrusted import safe_text
from rulebench.train.star import StarPlan
from rulebench.train.star_options import StarOptions
from rulebench.train.star_task import StarConfig

if TYPE_CHECKING:
    from rulebench.train.star import StarResult

FLAGS = {"output": ("--output", "-o"), "limit": ("--limit", "-n")}
SHOWN_FROM_PLAN = ("attempts", "teacher_reasoning")
"""Options whose default --help shows: `StarPlan`'s."""
OPTIONS = tuple(
    field_keyword(
        StarOptions, name, *FLAGS.get(name, ()),
        shown=shown_default(StarPlan, name) if name in SHOWN_FROM_PLAN else False,
    )
    for name in ("teacher", "data", "output", "attempts", "limit", "teacher_reasoning")
)  # fmt: skip
"""The options before the run settings, in --help order (--seed and --overwrite follow them)."""
SeedOption = Annotated[
    int | None, field_option(StarOptions, "seed", shown=shown_default(RunSettings, "sampling_seed"))
]
StarConcurrencyOption = Annotated[
    int | None, opt.concurrency_flag(str(StarConfig.default_concurrency))
]


@with_options(given=OptionBlock(OPTIONS, dict), study=study_options())
def star(
    given: dict[str, Any],
    model_arg: opt.ModelArgOption = None,
    base_url: opt.BaseUrlOption = None,
    concurrency: StarConcurrencyOption = None,
    max_tokens: opt.MaxTokensOption = None,
    temperature: opt.TemperatureOption = None,
    seed: SeedOption = None,
    overwrite: opt.OverwriteDataOption = False,
    study: StudyOptions = STUDY_DEFAULTS,
    thinking: ThinkingOption = None,
    reasoning_effort: ReasoningEffortOption = None,
    reasoning_tags: ReasoningTagsOption = None,
) -> None:
    """Make IRFT data whose targets are a teacher's reasoning where it got the answer right.

    Attempt 1 asks the teacher about every training example, attempts 2 and 3
    about those still unsolved; an example never solved keeps the plain target
    "Based on the j-th rule, the answer is X." (paper appendix G.5). Each attempt
    is a stored, cached run of the irft-star task: the same command again resumes
    a stopped attempt and reuses finished ones.
    """
    from rich.text import Text

    from rulebench.cli.run_terms import option_name, reasoning_terms
    from rulebench.train import star_notes
    from rulebench.train.star_options import prepare_star

    settings = RunSettings(
        model_args=parse_model_args(model_arg),
        base_url=join_base_urls(base_url),
        max_tokens=max_tokens,
        temperature=temperature,
        concurrency=concurrency,
        reasoning=reasoning_options(thinking, reasoning_effort, reasoning_tags),
    )
    options = StarOptions(**given, seed=seed, overwrite=overwrite)
    plan = prepare_star(options, settings, option_name)
    reasoning = Text.from_markup(reasoning_terms(plan.spec.generate)).plain
    err.print(safe_text(star_notes.settings_line(plan, reasoning)), highlight=False)
    result = _build(plan, study.store, study.as_json)
    if study.as_json:
        out.print_json(data=star_notes.result_json(result))
        return
    for line in star_notes.result_lines(result):
        out.print(safe_text(line))


def _build(plan: StarPlan, store_path: Path | None, quiet: bool) -> "StarResult":
    """Run the build with a progress bar per attempt; Ctrl-C leaves resumable runs."""
    import asyncio

    from rulebench.cli.interrupts import same_command, say_interrupted
    from rulebench.cli.progress import RichProgress
    from rulebench.engine.interrupts import Interrupts
    from rulebench.engine.store.database import Store
    from rulebench.train.star import build_star_data
    from rulebench.train.star_notes import stopped_note

    bars: list[RichProgress] = []

    def progress(attempt: int) -> RichProgress:
        bars.append(RichProgress(f"attempt {attempt}", enabled=not quiet))
        return bars[-1]

    interrupts = Interrupts()
    with Store(store_path) as store:
        try:
            with interrupts:
                return asyncio.run(interrupts.run(build_star_data(plan, store, progress)))
        except (KeyboardInterrupt, asyncio.CancelledError):
            kept = stopped_note(bars[-1].run_id if bars else None)
            say_interrupted(interrupts, kept, same_command())
            raise typer.Exit(interrupts.exit_code) from None
