"""How --help shows flags and config defaults, set on each command's options as it is built.

typer labels every option with its type, flags included (`--json <bool>`, though a flag takes
no value), and puts a default given as text in parentheses (`[default: (5)]`, as if it
described the value rather than being it). Defaults read from the typed configs reach --help
as text (`config_defaults.shown_default`), so they would look unlike every other default.
Both are set here through click's public option attributes, not typer's rendering:
  a flag gets an empty metavar, which typer shows in place of the type;
  a text default becomes a `ShownDefault`, which click calls to fill the value in (the
  option's own default comes back) and --help shows as its text.
"""

from typing import Any, TypeVar

import typer

CommandT = TypeVar("CommandT")


class ShownDefault:
    """An option's default, called when click fills it in, shown in --help as `text`."""

    def __init__(self, value: object, text: str) -> None:
        self.value = value
        self.text = text

    def __call__(self) -> object:
        """The option's real default: None for one the config fills in."""
        return self.value

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"ShownDefault({self.value!r}, {self.text!r})"


def plain_help(command: CommandT) -> CommandT:
    """`command` (a click command or group) with plain flags and defaults in its --help.

    A group's subcommands too, held in a dict as typer builds them; a group that builds its
    own on first use (`commands.LazyCommands`, no dict) calls this for each, since walking it
    would import them all.
    """
    # Any: typer ships click's classes under a private module only (typer._click).
    built: Any = command
    for param in built.params:
        plain_option(param)
    # The help option is built on request; asking for it now builds it once.
    plain_option(built.get_help_option(typer.Context(built)))
    subcommands = getattr(built, "commands", None)
    if isinstance(subcommands, dict):
        for subcommand in subcommands.values():
            plain_help(subcommand)
    return command


def plain_option(param: Any) -> None:
    """One option shown plainly: no type beside a flag, a text default without parentheses."""
    if param is None:
        return
    if getattr(param, "is_flag", False) and param.metavar is None:
        param.metavar = ""
    shown = getattr(param, "show_default", None)
    if isinstance(shown, str) and not getattr(param, "is_flag", False):
        param.default = ShownDefault(param.default, shown)
        param.show_default = True
