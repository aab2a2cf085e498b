"""`rulebench run judge`: can a model tell when a reply broke a scenario's rules?"""

from typing import Annotated, Literal

import typer

from rulebench.cli import options as opt
from rulebench.cli.execute import run_task, typed_config
from rulebench.cli.scenario_wording import PromptsOption, UpstreamOption, wording_fields


@opt.run_command()
def judge(
    run: opt.RunOptions,
    from_run: Annotated[
        list[str],
        typer.Option(
            "--from-run", help="Stored scenarios run(s) to take exchanges from, repeatable."
        ),
    ],
    per_rule: Annotated[
        int, typer.Option(min=1, help="Violations (and as many passes) per rule.")
    ] = 10,
    mode: Annotated[
        Literal["compat", "strict"], typer.Option(help="Evaluator mode for the ground truth.")
    ] = "compat",
    prompts: PromptsOption = None,
    upstream: UpstreamOption = None,
) -> None:
    """Error detection: the model answers pass or fail for the last exchange of played cases.

    Balanced per rule from the given runs; identical exchanges (the official data repeats some
    cases) are judged once. The ground truth is our evaluator's verdict. A source run that did
    not complete or holds error results is warned about, here and in the report. Accuracy,
    precision, recall and F1 per rule with 95% CIs (violation = positive):
    `rulebench report judge RUN_ID`.
    """
    from rulebench.engine.store import default_store_path
    from rulebench.scenarios.judge import JudgeConfig

    config = typed_config(
        JudgeConfig,
        runs=tuple(from_run),
        store=str(run.store or default_store_path()),
        per_rule=per_rule,
        seed=run.seed,
        mode=mode,
        **wording_fields(prompts, upstream),
    )
    run_task("judge", config, run)
