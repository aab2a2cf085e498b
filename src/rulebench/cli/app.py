"""The `rulebench` command: joins the command groups and turns expected errors into one line."""

import sys
from typing import Annotated

import typer

from rulebench.cli.commands import LazyGroup
from rulebench.cli.console import State, configure_logging, err
from rulebench.cli.include import IncludeOption, include_folders

app = typer.Typer(
    name="rulebench",
    help="Measure how language models follow rules: run tasks, inspect and export results.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    # The commands (rulebench.cli.commands.COMMANDS) are imported when used, not at start.
    cls=LazyGroup,
)


def _version(value: bool) -> None:
    if value:
        from rulebench import __version__

        typer.echo(f"rulebench {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    debug: Annotated[
        bool,
        typer.Option(
            "--debug", help="Log everything and show tracebacks (also after a subcommand)."
        ),
    ] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
    include: IncludeOption = None,
) -> None:
    """Measure how language models follow rules."""
    State.debug = debug
    configure_logging(debug)
    include_folders(include)


def debug_first(args: list[str]) -> list[str]:
    """The arguments with --debug moved to the front, where the top-level callback reads it.

    --debug belongs to `rulebench` itself, but is naturally typed anywhere (`rulebench run
    smoke --debug`). It is moved only from before a "--" (after it, it would be an argument);
    no option has a real value spelled "--debug".
    """
    end = args.index("--") if "--" in args else len(args)
    if "--debug" not in args[:end]:
        return args
    return ["--debug", *(arg for arg in args[:end] if arg != "--debug"), *args[end:]]


def main() -> None:
    """Entry point: a RulebenchError is one red line and exit status 1 (--debug: the traceback)."""
    from rulebench.core.errors import RulebenchError

    try:
        app(args=debug_first(sys.argv[1:]))
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
