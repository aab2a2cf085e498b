"""Options generated from a typed config's fields: the config says what an option means.

A config declares each field's help (its attribute docstring, read with
`use_attribute_docstrings`, or `Field(description=...)`), its bounds (`ge`, `le`) and its
default. The command line adds only its own spelling: the flags and, where typer parses
another type, the annotation. So an option reads `steps: Annotated[int | None,
field_option(GcgConfig, "num_steps", "--steps")] = None`, and its help and shown default
change with the config alone.
"""

import inspect
from typing import Annotated, Any

import annotated_types
import typer
from pydantic import BaseModel

from rulebench.cli.option_stack import keyword
from rulebench.core.field_defaults import shown_default

_SHOWN_FROM_CONFIG: Any = object()
"""Marker: show the config's default in --help (the usual case)."""


def field_help(model: type[BaseModel], field: str) -> str:
    """The help text `model` declares for `field`, on one line.

    Raises:
        ValueError: the field declares no help (a config field an option reads must say
            what it means).
    """
    # Lines are joined, spaces within a line kept: an example may hold two ('Santa  Claus').
    lines = (model.model_fields[field].description or "").splitlines()
    text = " ".join(line.strip() for line in lines if line.strip())
    if not text:
        raise ValueError(f"{model.__name__}.{field} has no description for its option's help")
    return text


def field_bounds(model: type[BaseModel], field: str) -> dict[str, Any]:
    """The field's `ge`/`le` bounds as typer's `min`/`max`, so the CLI refuses what it would."""
    bounds: dict[str, Any] = {}
    for rule in model.model_fields[field].metadata:
        if isinstance(rule, annotated_types.Ge):
            bounds["min"] = rule.ge
        elif isinstance(rule, annotated_types.Le):
            bounds["max"] = rule.le
    return bounds


def field_option(
    model: type[BaseModel],
    field: str,
    *flags: str,
    help: str | None = None,
    shown: str | bool = _SHOWN_FROM_CONFIG,
    metavar: str | None = None,
) -> Any:
    """A `typer.Option` for `model.field`: its help, bounds and shown default are the field's.

    Args:
        model: the config that declares the field.
        field: the field's name.
        flags: the command line's spelling (default: `--<field-with-dashes>`).
        help: a command's own wording, where the field means more there than its docstring.
        shown: the default --help shows; by default the config's (`shown_default`), False for
            none.
        metavar: the value's name in --help.
    """
    if shown is _SHOWN_FROM_CONFIG:
        shown = shown_default(model, field)
    return typer.Option(
        *(flags or (f"--{field.replace('_', '-')}",)),
        help=help or field_help(model, field),
        metavar=metavar,
        show_default=shown,
        **field_bounds(model, field),
    )


def field_keyword(
    model: type[BaseModel],
    field: str,
    *flags: str,
    kind: object = None,
    source: tuple[type[BaseModel], str] | None = None,
    **option: Any,
) -> inspect.Parameter:
    """`model.field` as one option of an option block (`option_stack.OptionBlock`).

    The parameter is named as the field and typed as it unless `kind` names the type typer
    parses (a list for a tuple); it is None when not given (False for a flag), and required
    (no default shown) where the field is.

    Args:
        model: the options model that declares the field (a front end's options).
        field: the field's name.
        flags: the command line's spelling (default: `--<field-with-dashes>`).
        kind: the type typer parses, where it is not the field's.
        source: the config field whose help, bounds and default the option shows (default:
            `model.field` itself), where the field only carries a value on to it.
        option: passed on to `field_option` (`help`, `shown`, `metavar`).
    """
    declared = model.model_fields[field]
    default: object = False if declared.annotation is bool else None
    if declared.is_required():
        default = inspect.Parameter.empty
        option.setdefault("shown", False)  # no default to show
    spelled = flags or (f"--{field.replace('_', '-')}",)  # the option's name, not the source's
    flag = field_option(*(source or (model, field)), *spelled, **option)
    return keyword(field, Annotated[kind or declared.annotation, flag], default)
