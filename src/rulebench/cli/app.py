"""The `rulebench` command: joins the command groups and turns expected errors into one line."""

import sys
from typing import Annotated, Any

import typer

from rulebench.cli.commands import LazyGroup
from rulebench.cli.console import State, configure_logging, err
from rulebench.cli.include import IncludeOption, include_folders


def _hide_flag_types() -> None:
    """Show no type beside a boolean flag in --help: `--json` takes no `<bool>` value.

    typer labels every option with its type, flags (--json, --no-cache, --help) included, and
    builds --help itself, so its rendering is adjusted here, once, for every command.
    """
    from typer.core import TyperOption

    shown = getattr(TyperOption, "display_type_rich", None)
    if shown is None:  # another typer: its own labels (a test notices)
        return

    # ctx is typer's private copy of click's Context.
    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag else shown(self, ctx)

    # A method replaced on purpose: the one place typer's flag labels are drawn.
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


def _plain_text_defaults() -> None:
    """Show a default given as text as `[default: 5]`, not typer's `[default: (5)]`.

    Defaults read from the typed configs reach --help as text (`config_defaults.shown_default`);
    typer puts any text default in parentheses, as if it described the value rather than being
    it, so those defaults would look unlike every other one.
    """
    from typer.core import TyperArgument, TyperOption

    for kind in (TyperOption, TyperArgument):
        shown = getattr(kind, "_get_default_string", None)
        if shown is None:  # another typer: its own rendering (a test notices)
            continue

        def default_string(
            self: TyperOption | TyperArgument,
            *,
            ctx: Any,
            show_default_is_str: bool,
            default_value: Any,
            _shown: Any = shown,
        ) -> str:
            if show_default_is_str:
                return str(self.show_default)
            return str(
                _shown(self, ctx=ctx, show_default_is_str=False, default_value=default_value)
            )

        # A private method replaced on purpose: where typer writes a default's text.
        kind._get_default_string = default_string  # type: ignore[method-assign]


_hide_flag_types()
_plain_text_defaults()
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
