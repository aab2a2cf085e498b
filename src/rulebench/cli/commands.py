"""The top-level commands by name; a command's module is imported only when it is used.

`rulebench run ...` needs the run commands alone. With every command group imported up front (GCG
attacks, listings, the web server, training), importing the CLI took several times as long, and
every run started later (bench/bench_startup.py; docs/performance.md). `rulebench --help` still
builds every command, to print their one-line help.
"""

import importlib
from collections.abc import Iterator, MutableMapping
from typing import Any, Literal, NamedTuple

import typer
import typer.main
from typer.core import MarkupMode, TyperCommand, TyperGroup

Command = TyperCommand | TyperGroup
"""A command as typer builds it (its signatures name click's classes, which it keeps private)."""


class Entry(NamedTuple):
    """Where a command is defined: module `rulebench.cli.<module>` and how it is attached."""

    module: str
    kind: Literal["group", "register", "command"]
    """group: the module's typer `app`; register: its `register(app)`; command: a function."""


COMMANDS: dict[str, Entry] = {
    # Order is the order of `rulebench --help`: single commands first, then groups.
    "models": Entry("models", "register"),
    "list": Entry("listing", "register"),
    "serve": Entry("serve", "register"),
    "experiment": Entry("experiment", "register"),
    "play": Entry("play", "command"),
    "run": Entry("run", "group"),
    "runs": Entry("runs", "group"),
    "report": Entry("report", "group"),
    "cache": Entry("cache", "group"),
    "train": Entry("train", "group"),
    "irft": Entry("irft", "group"),
    "attack": Entry("attack", "group"),
}


RUN_SUBCOMMANDS: dict[str, Entry] = {
    # `rulebench run`'s subcommands defined in modules of their own (smoke and loadtest live in
    # rulebench.cli.run): a loadtest run never imports the inferential tasks or the scenarios.
    "inferential": Entry("run_inferential", "command"),
    "scenarios": Entry("run_scenarios", "command"),
    "judge": Entry("run_judge", "command"),
}


def load_command(name: str, entry: Entry, rich_markup_mode: MarkupMode) -> Command:
    """Import command `name`'s module and build its click command as typer builds it."""
    module = importlib.import_module(f"rulebench.cli.{entry.module}")
    holder = typer.Typer(rich_markup_mode=rich_markup_mode)
    if entry.kind == "group":
        holder.add_typer(module.app, name=name)
    elif entry.kind == "register":
        module.register(holder)
    else:
        holder.command(name)(getattr(module, name))
    built = typer.main.get_group(holder).commands[name]
    if not isinstance(built, TyperCommand | TyperGroup):
        raise TypeError(f"rulebench.cli.{entry.module}: {name} is not a typer command")
    return built


# Any: a typer group's table is typed with click's command class, private to typer; every
# value here is a `Command`.
class LazyCommands(MutableMapping[str, Any]):
    """Every command name, in help order; a command in the table is built on first access.

    Help lists the table's commands first, then those defined in the group's own module. Each
    command's --help shows flags and defaults plainly (`help_display.plain_help`).
    """

    def __init__(
        self,
        table: dict[str, Entry],
        loaded: MutableMapping[str, Any],
        markup: MarkupMode,
    ) -> None:
        self._table = table
        from rulebench.cli.help_display import plain_help

        self._loaded: dict[str, Command] = {
            name: plain_help(command) for name, command in loaded.items()
        }
        self._markup = markup

    def __getitem__(self, name: str) -> Command:
        if name not in self._loaded:
            if name not in self._table:
                raise KeyError(name)
            from rulebench.cli.help_display import plain_help

            built = load_command(name, self._table[name], self._markup)
            self._loaded[name] = plain_help(built)
        return self._loaded[name]

    def __setitem__(self, name: str, command: Command) -> None:
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        del self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        yield from self._table
        yield from (name for name in self._loaded if name not in self._table)

    def __len__(self) -> int:
        return len(self._table.keys() | self._loaded.keys())


class LazyGroup(TyperGroup):
    """The root command group: lists every command, imports one only when it is used."""

    table = COMMANDS

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = LazyCommands(self.table, self.commands, self.rich_markup_mode)

    def get_params(self, ctx: Any) -> list[Any]:
        """The group's own options (typer adds some after building it), shown plainly."""
        from rulebench.cli.help_display import plain_option

        params = super().get_params(ctx)
        for param in params:
            plain_option(param)
        return params


class LazyRunGroup(LazyGroup):
    """`rulebench run`: its subcommands in modules of their own are imported when used."""

    table = RUN_SUBCOMMANDS
