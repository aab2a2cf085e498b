"""--help shows flags without a type and config defaults as values, by public means only."""

from typing import Annotated, Any

import pytest
import typer
import typer.main

from rulebench.cli.help_display import ShownDefault, plain_help


def built(seen: list[object]) -> typer.Typer:
    app = typer.Typer(rich_markup_mode="rich")

    @app.command()
    def steps(
        count: Annotated[int | None, typer.Option(help="Steps.", show_default="250")] = None,
        json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        seen.append((count, json))

    @app.command()
    def other() -> None:
        """A second command, so the app is a group."""

    return app


def help_of(command: Any, capsys: pytest.CaptureFixture[str]) -> str:
    """--help of `steps`, from the built click command (typer's runner takes only an app)."""
    command.main(["steps", "--help"], prog_name="demo", standalone_mode=False)
    return capsys.readouterr().out


def test_typer_alone_labels_flags_and_wraps_text_defaults(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown = help_of(typer.main.get_command(built([])), capsys)
    assert "<bool>" in shown and "[default: (250)]" in shown


def test_plain_help_shows_the_value_and_no_flag_type(capsys: pytest.CaptureFixture[str]) -> None:
    shown = help_of(plain_help(typer.main.get_command(built([]))), capsys)
    assert "[default: 250]" in shown and "(250)" not in shown
    assert "<bool>" not in shown and "--json" in shown and "<int>" in shown


def test_an_option_left_out_still_gets_its_own_default() -> None:
    seen: list[object] = []
    command = plain_help(typer.main.get_command(built(seen)))
    command.main(["steps"], standalone_mode=False)
    command.main(["steps", "--count", "3", "--json"], standalone_mode=False)
    assert seen == [(None, False), (3, True)]


def test_a_shown_default_is_its_value_when_called_and_its_text_when_shown() -> None:
    default = ShownDefault(None, "all")
    assert default() is None and str(default) == "all"
