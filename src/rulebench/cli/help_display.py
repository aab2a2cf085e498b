"""How --help shows flags and config defaults, set on each command's options as it is built.

typer labels every option with its type, flags included (`--json <bool>`, though a flag takes
no value), and puts a default given as text in parentheses (`[default: (5)]`, as if it
described the value rather than being it). Defaults read from the typed configs reach --help
as text (`core.field_defaults.shown_default`), so they would look unlike every other default.
Both are set here through click's public option attributes, not typer's rendering:
  a flag gets an empty metavar, which typer shows in place of the type;
  a text default becomes a `ShownDefault`, which click calls to fill the value in (the
  option's own default comes back) and --help shows as its text.
"""

from typing import TypeVar

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

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
    """`command` (a typer command or group) with plain flags and defaults in its --help.

    A group's subcommands too, held in a dict as typer builds them; a group that builds its
    own on first use (`commands.LazyCommands`, no dict) calls this for each, since walking it
    would import them all.
    """
    if not isinstance(command, TyperCommand | TyperGroup):
        return command
    for param in command.params:
        plain_option(param)
    # The help option is built on request; asking for it now builds it once.
    plain_option(command.get_help_option(typer.Context(command)))
    if isinstance(command, TyperGroup) and isinstance(command.commands, dict):
        for subcommand in command.commands.values():
            plain_help(subcommand)
    return command


def plain_option(param: object) -> None:
    """One option shown plainly: no type beside a flag, a text default without parentheses.

    `param` is any of a command's parameters (typer's option and argument classes; anything
    else, or None for a command without a help option, is left as it is).
    """
    if not isinstance(param, TyperOption | TyperArgument):
        return
    is_flag = isinstance(param, TyperOption) and param.is_flag
    if is_flag and param.metavar is None:
        param.metavar = ""
    if isinstance(param.show_default, str) and not is_flag:
        param.default = ShownDefault(param.default, param.show_default)
        param.show_default = True
