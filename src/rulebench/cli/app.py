"""The `rulebench` command: joins the command groups and turns expected errors into one line."""

import sys
from typing import Annotated

import typer

from rulebench.cli import cache, models, play, report, run, runs
from rulebench.cli.console import State, configure_logging, err

app = typer.Typer(
    name="rulebench",
    help="Measure how language models follow rules: run tasks, inspect and export results.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
app.add_typer(run.app, name="run")
app.add_typer(runs.app, name="runs")
app.add_typer(report.app, name="report")
app.add_typer(cache.app, name="cache")
models.register(app)
app.command("play")(play.play)


def _version(value: bool) -> None:
    if value:
        from rulebench import __version__

        typer.echo(f"rulebench {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    debug: Annotated[
        bool, typer.Option("--debug", help="Log everything and show tracebacks.")
    ] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """Measure how language models follow rules."""
    State.debug = debug
    configure_logging(debug)


def main() -> None:
    """Entry point: a RulebenchError is one red line and exit status 1 (--debug: the traceback)."""
    from rulebench.core.errors import RulebenchError

    try:
        app()
    except RulebenchError as exc:
        if State.debug:
            raise
        from rich.text import Text

        from rulebench.report.untrusted import safe_text

        # Messages quote user data, server replies and file contents: never markup, no controls.
        err.print(
            Text.assemble(("error: ", "red"), safe_text(exc)), highlight=False, soft_wrap=True
        )
        sys.exit(1)
