"""`rulebench run judge`: can a model tell when a reply broke a scenario's rules?"""

from typing import Annotated

import typer

from rulebench.cli import options as opt
from rulebench.cli.execute import run_task, typed_config
from rulebench.cli.field_options import field_bounds, field_option
from rulebench.cli.renamed_options import pick_renamed
from rulebench.cli.scenario_wording import PromptsOption, UpstreamOption
from rulebench.scenarios.base import EvalMode
from rulebench.scenarios.judge import JudgeConfig


@opt.run_command()
def judge(
    run: opt.RunOptions,
    from_run: Annotated[list[str], field_option(JudgeConfig, "runs", "--from-run", shown=False)],
    per_group: Annotated[int | None, field_option(JudgeConfig, "per_group")] = None,
    per_rule: Annotated[
        int | None, typer.Option(hidden=True, **field_bounds(JudgeConfig, "per_group"))
    ] = None,
    mode: Annotated[EvalMode | None, field_option(JudgeConfig, "mode")] = None,
    prompts: PromptsOption = None,
    upstream: UpstreamOption = None,
    judge_reasoning: Annotated[
        bool, field_option(JudgeConfig, "judge_reasoning", shown=False)
    ] = False,
) -> None:
    """Error detection: the model answers pass or fail for the last exchange of played cases.

    Balanced per rule from the given runs; identical exchanges (the official data
    repeats some cases) are judged once. The ground truth is our evaluator's
    verdict. A source run that did not complete or holds error results is warned
    about, here and in the report. Accuracy, precision, recall and F1 per rule
    with 95% CIs (violation = positive): `rulebench report RUN_ID`.
    """
    from rulebench.engine.store.location import default_store_path
    from rulebench.scenarios.upstream.text import wording_fields

    count = pick_renamed(per_group, per_rule, new="--per-group", old="--per-rule")
    config = typed_config(
        JudgeConfig,
        runs=tuple(from_run),
        store=str(run.store or default_store_path()),
        **({"per_group": count} if count is not None else {}),
        seed=run.seed,
        **({"mode": mode} if mode is not None else {}),
        **wording_fields(prompts, upstream),
        **({"judge_reasoning": True} if judge_reasoning else {}),
    )
    run_task("judge", config, run)
