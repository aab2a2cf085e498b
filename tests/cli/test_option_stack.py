"""Blocks of shared options stack onto a command's own, where its parameter stands or last."""

import inspect
from pathlib import Path
from typing import Annotated, Any

import pytest
import typer
import typer.main

from rulebench.cli.option_stack import OptionBlock, keyword, with_options
from rulebench.cli.study_options import STUDY_DEFAULTS, StudyOptions, study_options
from rulebench.cli.train import app as train_app

Shared = Annotated[int, typer.Option("--shared")]


def block(last: bool = False) -> OptionBlock:
    return OptionBlock((keyword("shared", Shared, 5),), lambda values: values["shared"], last)


def test_a_block_stands_in_for_its_parameter_and_arrives_packed() -> None:
    seen: list[object] = []

    @with_options(packed=block())
    def command(first: int, packed: int = 0, after: str = "x") -> None:
        seen.append((first, packed, after))

    names = list(inspect.signature(command).parameters)
    assert names == ["first", "shared", "after"]
    # Python needs no positional parameter after the block's keyword-only ones.
    kinds = [p.kind for p in inspect.signature(command).parameters.values()]
    assert kinds[1:] == [inspect.Parameter.KEYWORD_ONLY] * 2
    command(1, shared=2, after="y")
    command(3)  # a direct call: the block's options take their defaults
    assert seen == [(1, 2, "y"), (3, 5, "x")]


def test_a_last_block_follows_the_commands_own_options() -> None:
    @with_options(packed=block(last=True))
    def command(packed: int, own: int = 1) -> None:
        """A command."""

    assert list(inspect.signature(command).parameters) == ["own", "shared"]


def test_a_block_without_its_parameter_is_refused() -> None:
    def command(own: int = 1) -> None:
        """A command."""

    with pytest.raises(TypeError, match="no parameter packed"):
        with_options(packed=block())(command)


def test_the_study_block_reaches_the_command_through_typer(tmp_path: Path) -> None:
    seen: list[StudyOptions] = []
    app = typer.Typer()

    @app.command()
    @with_options(study=study_options(concurrency="8"))
    def study(name: str = "x", study: StudyOptions = STUDY_DEFAULTS) -> None:
        seen.append(study)

    @app.command()
    def other() -> None:
        """A second command, so `study` is a subcommand."""

    command: Any = typer.main.get_command(app)
    store = tmp_path / "s.sqlite"
    command.main(["study", "--store", str(store), "--json", "-c", "3"], standalone_mode=False)
    command.main(["study"], standalone_mode=False)
    assert seen == [StudyOptions(store, True, None, 3), StudyOptions()]


@pytest.mark.parametrize("name", ["data", "star", "irft", "compare"])
def test_every_train_command_takes_the_shared_json_option(name: str) -> None:
    group = typer.main.get_group(train_app)
    command = group.get_command(typer.Context(group), name)
    assert command is not None
    flags = {param.name: param.opts[0] for param in command.params}
    assert flags["as_json"] == "--json"
    assert flags.get("store") == (None if name == "data" else "--store")
