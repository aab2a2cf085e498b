"""`rulebench train star`: chain-of-thought IRFT targets, kept STaR-style from a teacher model."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rulebench.cli import options as opt
from rulebench.cli.config_defaults import shown_default
from rulebench.cli.console import err, out
from rulebench.cli.option_stack import with_options
from rulebench.cli.reasoning_flags import (
    ReasoningEffortOption,
    ReasoningTagsOption,
    ThinkingOption,
    reasoning_options,
)
from rulebench.cli.run_terms import reasoning_terms
from rulebench.cli.study_options import STUDY_DEFAULTS, StudyOptions, study_options
from rulebench.engine.catalog import RunSettings
from rulebench.train.star_manifest import DEFAULT_TEACHER_REASONING, TeacherReasoning
from rulebench.train.star_task import MAX_ATTEMPTS, StarConfig

if TYPE_CHECKING:
    from rulebench.cli.interrupts import Interrupts
    from rulebench.engine.runner import RunSpec
    from rulebench.train.star import RoundReport, StarPlan, StarResult

TeacherOption = Annotated[
    str,
    typer.Option(
        "--teacher",
        # NAME, not <model>: the options column is narrow beside --teacher-reasoning.
        help="Model spec of the teacher that writes the reasoning, e.g. openai/gpt-4o-mini, or "
        "openai-api/vllm/NAME for a vLLM server (see `rulebench models`).",
        show_default=False,
    ),
]
StarLimitOption = Annotated[
    int | None,
    typer.Option(
        "--limit", "-n", min=1, help="Use the first N training examples only.", show_default=False
    ),
]
TeacherReasoningOption = Annotated[
    TeacherReasoning | None,
    typer.Option(
        "--teacher-reasoning",
        help="keep or drop: whether a reasoning teacher's thinking opens a kept target, as its "
        "chain of thought, or is left out (the reply alone). Only the reply is judged either "
        "way; the rounds' runs are the same, so switching reuses them.",
        show_default=DEFAULT_TEACHER_REASONING,
    ),
]
StarConcurrencyOption = Annotated[
    int | None, opt.concurrency_flag(str(StarConfig.default_concurrency))
]
_HOW = {"new": "asked now", "resumed": "stopped run resumed", "reused": "finished run reused"}


@with_options(study=study_options())
def star(
    teacher: TeacherOption,
    data: Annotated[
        Path, typer.Option(help="A folder from `rulebench train data`.", show_default=False)
    ],
    output: Annotated[
        Path,
        typer.Option("--output", "-o", help="Folder to write (new or empty).", show_default=False),
    ],
    attempts: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=MAX_ATTEMPTS,
            help="Tries per example before it gets the plain target.",
            show_default=str(MAX_ATTEMPTS),
        ),
    ] = None,
    limit: StarLimitOption = None,
    teacher_reasoning: TeacherReasoningOption = None,
    model_arg: opt.ModelArgOption = None,
    base_url: opt.BaseUrlOption = None,
    concurrency: StarConcurrencyOption = None,
    max_tokens: opt.MaxTokensOption = None,
    temperature: opt.TemperatureOption = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed of the teacher's sampling; each attempt derives its own.",
            show_default=shown_default(RunSettings, "sampling_seed"),
        ),
    ] = None,
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
    from rulebench.train.star import StarPlan

    settings = RunSettings(
        model_args=opt.parse_model_args(model_arg),
        base_url=opt.join_base_urls(base_url),
        max_tokens=max_tokens,
        temperature=temperature,
        **opt.given_only(sampling_seed=seed),
        concurrency=concurrency,
        reasoning=reasoning_options(thinking, reasoning_effort, reasoning_tags),
        limit=limit,
    )
    spec = _first_spec(teacher, data, settings)
    given = opt.given_only(attempts=attempts, teacher_reasoning=teacher_reasoning)
    plan = StarPlan(spec=spec, output=output, overwrite=overwrite, **given)
    err.print(
        f"[bold]irft-star[/bold] on [bold]{_markup(teacher)}[/bold]: up to {plan.attempts} "
        "attempts, "
        f"max_tokens={spec.generate.max_tokens} temperature={spec.generate.temperature} "
        f"concurrency={spec.concurrency}{reasoning_terms(spec.generate)} "
        f"teacher_reasoning={plan.teacher_reasoning}"
        + (f" limit={limit}" if limit is not None else ""),
        highlight=False,
    )
    result = _build(plan, study.store, study.as_json)
    if study.as_json:
        rounds = [report.model_dump(mode="json") for report in result.rounds]
        manifest = result.manifest.model_dump(mode="json", exclude_none=True)
        out.print_json(data={"folder": str(result.folder), "rounds": rounds, **manifest})
        return
    _print_result(result)


def _first_spec(teacher: str, data: Path, settings: RunSettings) -> "RunSpec":
    """Round 1's spec, built as for any run; an error names the option as typed here."""
    from rulebench.cli.execute import typed_config
    from rulebench.cli.run_terms import option_name
    from rulebench.engine.catalog import make_spec
    from rulebench.train.star_task import StarConfig

    config = typed_config(StarConfig, data=str(data))
    return make_spec(
        "irft-star",
        teacher,
        config,
        settings,
        lambda field: "--teacher" if field == "model" else option_name(field),
    )


def _build(plan: "StarPlan", store_path: Path | None, quiet: bool) -> "StarResult":
    """Run the build with a progress bar per attempt; Ctrl-C leaves resumable runs."""
    import asyncio

    from rulebench.cli.interrupts import Interrupts
    from rulebench.cli.progress import RichProgress
    from rulebench.engine.store.database import Store
    from rulebench.train.star import build_star_data

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
            _report_interrupt(interrupts, bars[-1].run_id if bars else None)
            raise typer.Exit(interrupts.exit_code) from None


def _report_interrupt(interrupts: "Interrupts", run_id: str | None) -> None:
    from rulebench.cli.interrupts import same_command, say_interrupted

    where = f" (run {run_id})" if run_id else ""
    kept = f"Finished replies are stored{where}: the same command goes on where it stopped."
    say_interrupted(interrupts, kept, same_command())


def _print_result(result: "StarResult") -> None:
    from rulebench.report.untrusted import safe_text

    star = result.manifest.star
    assert star is not None  # build_star_data always writes the section
    lines = [f"STaR data in {result.folder} (teacher {star.teacher})"]
    lines += [_round_line(report) for report in result.rounds]
    tests = ", ".join(
        f"{split} {count}" for split, count in result.manifest.counts.items() if split != "train"
    )
    lines += [
        f"  train: {star.kept} with the teacher's reasoning, {star.fallbacks} with the plain "
        "target (no attempt right)",
        f"  teacher's thinking: {_thinking_line(star.teacher_reasoning, star.kept_with_thinking)}",
        f"  copied unchanged: {tests or 'no test split'}; data hash "
        f"{result.manifest.data_hash[:16]}",
    ]
    for line in lines:
        out.print(safe_text(line))


def _thinking_line(teacher_reasoning: TeacherReasoning, with_thinking: int) -> str:
    if with_thinking == 0:
        return "none in the kept replies (keep and drop give the same targets)"
    if teacher_reasoning == "keep":
        return f"kept: {with_thinking} targets open with it as the chain of thought"
    return f"dropped from {with_thinking} targets (--teacher-reasoning keep keeps it)"


def _round_line(report: "RoundReport") -> str:
    summary = report.round
    ran = f", {report.ran} run now" if report.how != "reused" else ""
    cached = f", {report.cache_hits} from the cache" if report.cache_hits else ""
    return (
        f"  attempt {summary.attempt}: {summary.kept} of {summary.items} right "
        f"(run {summary.run_id}: {_HOW[report.how]}{ran}{cached})"
    )


def _markup(text: str) -> str:
    from rulebench.report.untrusted import escape_markup

    return escape_markup(text)
