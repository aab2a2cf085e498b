"""`rulebench train compare`: the before/after study of a tuned model (the paper's Table 3)."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rulebench.cli import options as opt
from rulebench.cli.config_defaults import shown_default
from rulebench.cli.console import err, out
from rulebench.cli.option_stack import with_options
from rulebench.cli.study_options import (
    STUDY_DEFAULTS,
    StudyOptions,
    output_option,
    study_options,
)
from rulebench.study.irft import PARTS, StudyConfig

if TYPE_CHECKING:
    from rulebench.study.irft import StudyResult


@with_options(
    study=study_options(
        output_option(
            "Folder for compare.md, compare.json, loss-curve.", shown_default(StudyConfig, "output")
        ),
        shown_default(StudyConfig, "concurrency"),
    )
)
def compare(
    base: Annotated[
        str,
        typer.Argument(
            help="The model before tuning: a spec such as hf/SmolLM2-135M-Instruct.",
            show_default=False,
        ),
    ],
    tuned: Annotated[
        str,
        typer.Argument(
            help="The tuned model: a `train irft` output folder (its base model plus its "
            "adapter), an adapter folder (put on BASE), a merged model folder, or a spec.",
            show_default=False,
        ),
    ],
    data: Annotated[
        Path | None,
        typer.Option(
            help="IRFT data folder whose test splits are measured. Default: the tuned run's.",
            show_default=False,
        ),
    ] = None,
    data_root: Annotated[
        Path | None,
        typer.Option(
            help="Official RuleBench data (holds clutrr/, ...). Without it: generated kinship.",
            show_default=False,
        ),
    ] = None,
    task: Annotated[
        list[str] | None,
        typer.Option(
            "--task",
            "-t",
            help="RuleBench task, repeatable. Default: the factual official datasets present.",
            show_default=False,
        ),
    ] = None,
    per_group: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Items per StringGame test split, per RuleBench task and benign cases per "
            "scenario behavior. Default: each part's own ("
            + ", ".join(shown_default(StudyConfig, part) for part in PARTS)
            + ").",
            show_default=False,
        ),
    ] = None,
    n: Annotated[int | None, typer.Option("--n", min=1, hidden=True)] = None,
    rulebench_n: Annotated[int | None, typer.Option(min=1, hidden=True)] = None,
    scenario_cases: Annotated[int | None, typer.Option(min=0, hidden=True)] = None,
    no_rulebench: Annotated[
        bool, typer.Option("--no-rulebench", help="Skip the RuleBench tasks.")
    ] = False,
    no_scenarios: Annotated[
        bool, typer.Option("--no-scenarios", help="Skip the benign scenarios control.")
    ] = False,
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
    from rulebench.cli.execute import typed_config
    from rulebench.cli.renamed_options import warn_renamed
    from rulebench.cli.study_run import run_study_command
    from rulebench.study.irft import contender, run_study, write_outputs

    old = {"--n": n, "--rulebench-n": rulebench_n, "--scenario-cases": scenario_cases}
    for spelling, value in old.items():
        if value is not None:
            warn_renamed(spelling, "--per-group")
    given: dict[str, object] = {
        "data": data, "data_root": data_root, "tasks": tuple(task) if task else None,
        "per_group": per_group, "stringgame_per_group": n, "rulebench_per_group": rulebench_n,
        "max_tokens": max_tokens, "concurrency": study.concurrency, "output": study.output,
    }  # fmt: skip
    values = {name: value for name, value in given.items() if value is not None}
    if scenario_cases is not None:  # the old spelling's 0 meant the whole suite
        values["scenarios_per_group"] = scenario_cases or None
    config = typed_config(
        StudyConfig, **values, rulebench=not no_rulebench, scenarios=not no_scenarios
    )
    before = contender("base", base)
    after = contender("tuned", tuned, before)
    cases = config.scenarios_per_group or "all"
    err.print(
        f"base {before.describe()}; tuned {after.describe()}; StringGame "
        f"{config.stringgame_per_group} per split, RuleBench {config.rulebench_per_group} per "
        f"task, benign cases per behavior: {cases if config.scenarios else 'skipped'}",
        highlight=False,
        markup=False,
    )
    result = run_study_command(
        lambda db, reporter: run_study(config, before, after, db, reporter),
        study.store,
        not study.as_json,
    )
    written = write_outputs(result, config.output)
    _print(result, written, study.as_json)
    if not result.complete:
        raise typer.Exit(1)


def _print(result: "StudyResult", written: list[Path], json_output: bool) -> None:
    from rulebench.cli.render import print_comparison
    from rulebench.report.untrusted import safe_text

    if json_output:
        out.print_json(result.model_dump_json())
        return
    title = "IRFT before/after (accuracy %, tuned - base in points)"
    print_comparison(result.rows, title, ("base", "tuned"))
    for run in result.runs:
        if run.status != "completed":
            err.print(
                safe_text(f"run {run.run_id} ({run.measurement}, {run.side}) is {run.status}"),
                style="yellow",
            )
    out.print(safe_text("written: " + ", ".join(str(path) for path in written)))
