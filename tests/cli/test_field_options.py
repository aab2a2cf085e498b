"""Options generated from config fields carry the field's help, bounds and default."""

import re
from typing import Annotated

import pytest
import typer
from pydantic import BaseModel, ConfigDict, Field
from typer.testing import CliRunner


class _Knobs(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    width: int = Field(default=7, ge=2, le=9)
    """How many candidates to keep."""
    silent: int = 3


def _app() -> typer.Typer:
    from rulebench.cli.field_options import field_option

    app = typer.Typer()

    @app.command()
    def go(width: Annotated[int | None, field_option(_Knobs, "width")] = None) -> None:
        typer.echo(f"width={width}")

    return app


def test_help_and_default_come_from_the_field() -> None:
    result = CliRunner().invoke(_app(), ["--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    assert "How many candidates to keep." in result.output
    assert re.search(r"default: \(?7\)?\]", result.output)


@pytest.mark.parametrize(
    ("value", "accepted"), [("2", True), ("9", True), ("1", False), ("10", False)]
)
def test_the_field_bounds_bound_the_option(value: str, accepted: bool) -> None:
    result = CliRunner().invoke(_app(), ["--width", value])
    assert (result.exit_code == 0) is accepted
    if accepted:
        assert f"width={value}" in result.output


def test_a_field_without_help_is_refused_when_declared() -> None:
    from rulebench.cli.field_options import field_option

    with pytest.raises(ValueError, match=r"_Knobs\.silent has no description"):
        field_option(_Knobs, "silent")


class _Worded(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)

    phrase: str = ""
    """Multi-word answers are compared as a phrase ('Santa  Claus'),
    whatever the spacing."""


def test_a_docstrings_lines_are_joined_and_its_spacing_kept() -> None:
    from rulebench.cli.field_options import field_help

    assert field_help(_Worded, "phrase") == (
        "Multi-word answers are compared as a phrase ('Santa  Claus'), whatever the spacing."
    )


class _Options(BaseModel):
    """A front end's options: `keep` carries a value on to `_Knobs.width`."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    names: tuple[str, ...]
    """Repeatable: the names to look at."""
    keep: int | None = None
    loud: bool = False
    """Say more."""


def _block_app() -> typer.Typer:
    from rulebench.cli.field_options import field_keyword
    from rulebench.cli.option_stack import OptionBlock, with_options

    options = (
        field_keyword(_Options, "names", "--name", kind=list[str]),
        field_keyword(_Options, "keep", source=(_Knobs, "width")),
        field_keyword(_Options, "loud", shown=False),
    )
    app = typer.Typer()

    @app.command()
    @with_options(given=OptionBlock(options, lambda values: _Options(**values)))
    def go(given: _Options) -> None:
        typer.echo(repr(given))

    return app


def test_a_keyword_option_is_named_as_its_field_and_reads_the_source_field() -> None:
    app = _block_app()
    shown = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "120"}).output
    assert "--keep" in shown and "--width" not in shown and "How many candidates" in shown
    assert re.search(r"default: \(?7\)?\]", shown) and "Say more." in shown
    ran = CliRunner().invoke(app, ["--name", "a", "--name", "b", "--keep", "3", "--loud"])
    assert ran.exit_code == 0, ran.output
    assert "names=('a', 'b'), keep=3, loud=True" in ran.output
    assert CliRunner().invoke(app, ["--name", "a", "--keep", "1"]).exit_code != 0  # _Knobs' ge=2
    assert CliRunner().invoke(app, ["--keep", "3"]).exit_code != 0  # --name is required
