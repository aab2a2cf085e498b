"""`rulebench train compare`: the before/after study of a tuned model (the paper's Table 3)."""

from functools import partial
from typing import Annotated, Any

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.cli.field_options import field_keyword
from rulebench.cli.option_stack import OptionBlock, with_options
from rulebench.cli.study_options import STUDY_DEFAULTS, StudyOptions, output_option, study_options
from rulebench.core.field_defaults import shown_default
from rulebench.report.untrusted import safe_text
from rulebench.study.irft import StudyConfig
from rulebench.study.irft_compare_options import CompareOptions

FLAGS = {"tasks": ("--task", "-t")}
OPTIONS = tuple(
    field_keyword(
        CompareOptions, name, *FLAGS.get(name, ()), shown=False,
        kind=list[str] | None if name == "tasks" else None,
    )
    for name in ("data", "data_root", "tasks", "per_group", "no_rulebench", "no_scenarios")
)  # fmt: skip
"""The options that fill `CompareOptions`, in --help order (no default shown: each says its)."""
OLD_PARTS = {"--n": "stringgame_per_group", "--rulebench-n": "rulebench_per_group"}
"""The old per-part spellings of --per-group, by the part they set."""
BaseArgument = Annotated[
    str,
    typer.Argument(
        help="The model before tuning: a spec such as hf/SmolLM2-135M-Instruct.",
        show_default=False,
    ),
]
TunedArgument = Annotated[
    str,
    typer.Argument(
        help="The tuned model: a `train irft` output folder (its base model plus its adapter), "
        "an adapter folder (put on BASE), a merged model folder, or a spec.",
        show_default=False,
    ),
]
OldCount = Annotated[int | None, typer.Option(min=1, hidden=True)]
OUTPUT = output_option(
    "Folder for compare.md, compare.json, loss-curve.", shown_default(StudyConfig, "output")
)


@with_options(
    given=OptionBlock(OPTIONS, dict),
    study=study_options(OUTPUT, shown_default(StudyConfig, "concurrency")),
)
def compare(
    base: BaseArgument,
    tuned: TunedArgument,
    given: dict[str, Any],
    n: Annotated[int | None, typer.Option("--n", min=1, hidden=True)] = None,
    rulebench_n: OldCount = None,
    scenario_cases: Annotated[int | None, typer.Option(min=0, hidden=True)] = None,
    max_tokens: opt.MaxTokensOption = None,
    study: StudyOptions = STUDY_DEFAULTS,
) -> None:
    """Run BASE and TUNED on the same items and print the paired differences.

    Measured, each as an ordinary stored run (cached, so a repeat is quick): the
    StringGame in-distribution and held-out-rule test splits of the tuned model's
    data, RuleBench zero-shot with a few rules, and the scenarios' benign suite as
    a control for general ability. Each row gives both accuracies and tuned minus
    base with a paired 95% interval and McNemar's exact test. The tuned run's loss
    curve is drawn beside the table.
    """
    from rulebench.cli.render import print_comparison
    from rulebench.cli.run_terms import option_name
    from rulebench.cli.study_run import run_study_command
    from rulebench.study import irft_compare_options as notes
    from rulebench.study.irft import run_study, write_outputs

    parts = _old_parts({"--n": n, "--rulebench-n": rulebench_n}, scenario_cases)
    tasks = tuple(given.pop("tasks") or ())
    settings = {"max_tokens": max_tokens, "concurrency": study.concurrency}
    options = CompareOptions(**given, tasks=tasks, parts=parts, output=study.output, **settings)
    prepared = notes.prepare_compare(options, base, tuned, option_name)
    err.print(prepared.line, highlight=False, markup=False)
    sides = partial(run_study, prepared.config, prepared.base, prepared.tuned)
    result = run_study_command(sides, study.store, not study.as_json)
    written = write_outputs(result, prepared.config.output)
    if study.as_json:
        out.print_json(result.model_dump_json())
    else:
        print_comparison(result.rows, notes.TABLE_TITLE, ("base", "tuned"))
        for line in notes.unfinished_lines(result):
            err.print(safe_text(line), style="yellow")
        out.print(safe_text(notes.written_line(written)))
    if not result.complete:
        raise typer.Exit(1)


def _old_parts(counts: dict[str, int | None], scenario_cases: int | None) -> dict[str, int | None]:
    """The parts the old spellings set, each warned about once."""
    from rulebench.cli.renamed_options import warn_renamed

    parts: dict[str, int | None] = {}
    for spelling, value in {**counts, "--scenario-cases": scenario_cases}.items():
        if value is not None:
            warn_renamed(spelling, "--per-group")
            parts[OLD_PARTS.get(spelling, "scenarios_per_group")] = value
    if scenario_cases == 0:  # the old spelling's 0 meant the whole suite
        parts["scenarios_per_group"] = None
    return parts
