"""`rulebench run judge`: can a model tell when a reply broke a scenario's rules?"""

from typing import Annotated, Literal

import typer
from pydantic import JsonValue

from rulebench.cli import options as opt
from rulebench.cli.execute import build_spec, execute


def judge(
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
    model: opt.ModelOption = None,
    model_arg: opt.ModelArgOption = None,
    base_url: opt.BaseUrlOption = None,
    concurrency: opt.ConcurrencyOption = 8,
    limit: opt.LimitOption = None,
    max_tokens: opt.MaxTokensOption = None,
    temperature: opt.TemperatureOption = 0.0,
    seed: opt.SeedOption = 0,
    no_cache: opt.NoCacheOption = False,
    store: opt.StoreOption = None,
    as_json: opt.JsonOption = False,
    fail_on_error: opt.FailOnErrorOption = 0.0,
) -> None:
    """Error detection: the model answers pass or fail for the last exchange of played cases.

    Balanced per rule from the given runs; identical exchanges (the official data repeats some
    cases) are judged once. The ground truth is our evaluator's verdict. A source run that did
    not complete or holds error results is warned about, here and in the report. Accuracy,
    precision, recall and F1 per rule with 95% CIs (violation = positive):
    `rulebench report judge RUN_ID`.
    """
    from rulebench.engine.store import default_store_path

    config: dict[str, JsonValue] = {
        "runs": list(from_run),
        "store": str(store or default_store_path()),
        "per_rule": per_rule,
        "seed": seed,
        "mode": mode,
    }
    common = opt.RunOptions(
        model, model_arg, base_url, concurrency, limit, max_tokens, temperature, seed, no_cache
    )
    execute(build_spec("judge", config, common), store, None, as_json, fail_on_error)
