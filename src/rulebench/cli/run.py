"""`rulebench run`: run a task on a model (or resume a stopped run) and print its results."""

from typing import Annotated

import typer

from rulebench.cli import options as opt
from rulebench.cli.execute import build_spec, execute, resume_run
from rulebench.cli.run_inferential import inferential
from rulebench.cli.run_judge import judge
from rulebench.cli.run_scenarios import scenarios

app = typer.Typer(
    help="Run a task against a model. With no subcommand: the built-in smoke task on the "
    "embedded model (or, with --resume, finish a stopped run).",
    invoke_without_command=True,
)
app.command()(inferential)
app.command()(scenarios)
app.command()(judge)


@app.callback()
def run_default(
    ctx: typer.Context,
    resume: Annotated[
        str | None,
        typer.Option(
            help="Finish an interrupted or killed run: only missing and failed items run.",
            show_default=False,
        ),
    ] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency",
            "-c",
            min=1,
            help="Override the stored concurrency when resuming.",
            show_default=False,
        ),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(
            help="With --resume: the server's URL again (e.g. it moved, or its user:password, "
            "which is never stored).",
            show_default=False,
        ),
    ] = None,
    store: opt.StoreOption = None,
    as_json: opt.JsonOption = False,
) -> None:
    """Run the smoke task, or resume a run."""
    if ctx.invoked_subcommand is not None:
        return
    if resume is not None:
        resume_run(resume, store, {"concurrency": concurrency, "base_url": base_url}, as_json)
    else:
        smoke(store=store, as_json=as_json)


@app.command()
def smoke(
    model: opt.ModelOption = None,
    model_arg: opt.ModelArgOption = None,
    base_url: opt.BaseUrlOption = None,
    concurrency: opt.ConcurrencyOption = 4,
    limit: opt.LimitOption = None,
    max_tokens: opt.MaxTokensOption = None,
    temperature: opt.TemperatureOption = 0.0,
    seed: opt.SeedOption = 0,
    no_cache: opt.NoCacheOption = False,
    store: opt.StoreOption = None,
    as_json: opt.JsonOption = False,
) -> None:
    """Six built-in items (4 questions, 2 conversations): checks a model and the pipeline."""
    common = opt.RunOptions(
        model, model_arg, base_url, concurrency, limit, max_tokens, temperature, seed, no_cache
    )
    execute(build_spec("smoke", {}, common), store, None, as_json)


@app.command()
def loadtest(
    items: Annotated[int, typer.Option("--items", min=1, help="Number of items.")] = 1000,
    model: opt.ModelOption = None,
    model_arg: opt.ModelArgOption = None,
    base_url: opt.BaseUrlOption = None,
    concurrency: opt.ConcurrencyOption = 64,
    limit: opt.LimitOption = None,
    max_tokens: opt.MaxTokensOption = None,
    temperature: opt.TemperatureOption = 0.0,
    seed: opt.SeedOption = 0,
    no_cache: opt.NoCacheOption = False,
    store: opt.StoreOption = None,
    as_json: opt.JsonOption = False,
) -> None:
    """N synthetic "repeat this token" items: load-test a server or the engine itself."""
    common = opt.RunOptions(
        model, model_arg, base_url, concurrency, limit, max_tokens, temperature, seed, no_cache
    )
    execute(build_spec("loadtest", {"n": items, "seed": seed}, common), store, None, as_json)
