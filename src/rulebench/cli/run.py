"""`rulebench run`: run a task on a model (or resume a stopped run) and print its results."""

from typing import Annotated

import typer
from typer.core import TyperGroup

from rulebench.checks.loadtest import LoadTestConfig
from rulebench.checks.smoke import SmokeConfig
from rulebench.cli import options as opt
from rulebench.cli.commands import LazyRunGroup
from rulebench.cli.execute import resume_run, run_task
from rulebench.cli.renamed_options import pick_renamed
from rulebench.core.field_defaults import shown_default
from rulebench.engine.run_flags import join_base_urls

app = typer.Typer(
    # inferential, scenarios and judge (rulebench.cli.commands.RUN_SUBCOMMANDS) are imported
    # when used, not at start.
    cls=LazyRunGroup,
    help="Run a task against a model. With no subcommand: the built-in smoke task on the "
    "embedded model (or, with --resume, finish a stopped run). Options given here before a "
    "subcommand apply to it, unless it is given them itself.",
    invoke_without_command=True,
)


@app.callback()
def run_default(
    ctx: typer.Context,
    resume: Annotated[
        str | None,
        typer.Option(
            help="Finish an interrupted or killed run: only missing and failed items run. "
            "Takes no subcommand (the run keeps its own task and settings).",
            show_default=False,
        ),
    ] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency",
            "-c",
            min=1,
            help="Items in flight at once (with --resume: instead of the stored number).",
            show_default=False,
        ),
    ] = None,
    base_url: Annotated[
        list[str] | None,
        typer.Option(
            metavar="<url>",
            help="Endpoint of an OpenAI-compatible server; with --resume, the server's URL "
            "again (it moved, or its user:password, which is never stored). Repeat or "
            "comma-separate to spread requests over several replicas.",
            show_default=False,
        ),
    ] = None,
    store: opt.StoreOption = None,
    as_json: opt.JsonOption = False,
    fail_on_error: opt.FailOnErrorOption = 0.0,
) -> None:
    """Run the smoke task, or resume a run.

    Options given here before a subcommand apply to it (`run --store X smoke`), unless the
    subcommand is given the same option itself.
    """
    given = {name: value for name, value in ctx.params.items() if opt.is_given(ctx, name)}
    if ctx.invoked_subcommand is not None:
        _pass_down(ctx, ctx.invoked_subcommand, given)
    elif resume is not None:
        overrides: dict[str, object] = {
            "concurrency": concurrency,
            "base_url": join_base_urls(base_url),
        }
        resume_run(resume, store, overrides, as_json, fail_on_error)
    else:
        smoke(
            base_url=base_url,
            concurrency=concurrency,
            store=store,
            as_json=as_json,
            fail_on_error=fail_on_error,
        )


def _pass_down(ctx: typer.Context, subcommand: str, given: dict[str, object]) -> None:
    """Make the group's options the subcommand's defaults, so its own options still win.

    click reads a subcommand's defaults from the parent's `default_map` under its name; an
    option the subcommand does not have, or --resume, is an error rather than ignored.
    """
    from rulebench.core.errors import ConfigError

    if "resume" in given:
        raise ConfigError(
            f"--resume finishes a stored run with its own task and settings: drop "
            f"'{subcommand}' (rulebench run --resume RUN_ID)"
        )
    group = ctx.command
    command = group.get_command(ctx, subcommand) if isinstance(group, TyperGroup) else None
    accepted = {param.name for param in command.params} if command else set()
    unknown = [name for name in given if name not in accepted]
    if unknown:
        spelled = {param.name: param.opts[0] for param in ctx.command.params}
        flags = ", ".join(spelled[name] for name in unknown)
        raise ConfigError(f"`rulebench run {subcommand}` has no {flags} option")
    ctx.default_map = dict(ctx.default_map or {}) | {subcommand: given}


@app.command()
@opt.run_command(concurrency=SmokeConfig.default_concurrency)
def smoke(run: opt.RunOptions) -> None:
    """Six built-in items (4 questions, 2 conversations): checks a model and the pipeline."""
    run_task("smoke", SmokeConfig(), run)


_ITEMS = Annotated[
    int | None,
    typer.Option(
        "--limit",
        "-n",
        min=1,
        help="Items to make.",
        show_default=shown_default(LoadTestConfig, "n"),
    ),
]


@app.command()
@opt.run_command(concurrency=LoadTestConfig.default_concurrency, limit=_ITEMS)
def loadtest(
    run: opt.RunOptions,
    items: Annotated[int | None, typer.Option("--items", min=1, hidden=True)] = None,
) -> None:
    """N synthetic "repeat this token" items: load-test a server or the engine itself."""
    limit = pick_renamed(run.limit, items, new="--limit", old="--items")
    run_task("loadtest", LoadTestConfig(seed=run.seed), run._replace(limit=limit))
