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
