"""Run settings are declared once: the API's keywords and experiment files follow `RunSettings`.

They are typed declarations of their own (type checkers read them), held to its fields here,
so a setting added, bounded or renamed there cannot drift from them.
"""

import types
from typing import Annotated, Union, get_args, get_origin, get_type_hints

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from rulebench.api import RunOptions
from rulebench.engine.run_settings import RunSettings
from rulebench.engine.run_settings import RunSettings as CatalogRunSettings
from rulebench.study.experiment import Defaults, ModelEntry, RunDefaults

BOUNDS = (annotated_types.Ge, annotated_types.Gt, annotated_types.Le, annotated_types.Lt)
FILE_ONLY = {"seed"}
"""The data's seed: experiment files (and the CLI's --seed) set it beside the run settings."""
NOT_IN_FILES = {"shard"}
"""A shard is the command line's: every shard runs the same file."""


def members(annotation: object) -> set[object]:
    """A type's union members, None left out (`int | None`: {int}), validators stripped."""
    if get_origin(annotation) in (Union, types.UnionType):
        return {plain(arg) for arg in get_args(annotation) if arg is not type(None)}
    return {plain(annotation)}


def plain(annotation: object) -> object:
    """The type without its `Annotated` validators (a file's -M value is read from a number)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return plain(get_args(annotation)[0])
    if origin in (dict, list, tuple):
        return origin[tuple(plain(arg) for arg in get_args(annotation))]
    return annotation


def bounds(field: FieldInfo) -> list[object]:
    return [rule for rule in field.metadata if isinstance(rule, BOUNDS)]


def test_the_catalog_runs_the_one_declaration() -> None:
    assert CatalogRunSettings is RunSettings


def test_every_setting_has_help_text() -> None:
    missing = [name for name, field in RunSettings.model_fields.items() if not field.description]
    assert not missing


def test_the_apis_keywords_are_the_settings_fields() -> None:
    hints = get_type_hints(RunOptions)
    assert set(hints) == set(RunSettings.model_fields)
    for name, field in RunSettings.model_fields.items():
        # The API takes each setting's type, and for some a spelling of it (a shard as "2/4").
        assert members(field.annotation) <= members(hints[name]), name


def test_experiment_files_take_the_settings_fields_with_their_bounds() -> None:
    where: dict[str, type[BaseModel]] = {
        **{name: RunDefaults for name in RunDefaults.model_fields},
        "model_args": Defaults,
        "base_url": ModelEntry,
    }
    assert set(RunDefaults.model_fields) - FILE_ONLY == (
        set(RunSettings.model_fields) - NOT_IN_FILES - {"model_args", "base_url"}
    )
    for name, field in RunSettings.model_fields.items():
        if name in NOT_IN_FILES:
            continue
        declared = where[name].model_fields[name]
        assert members(field.annotation) == members(declared.annotation), name
        assert bounds(field) == bounds(declared), name
    # model_args and reasoning are also per model: the same types as the settings'.
    assert (
        ModelEntry.model_fields["reasoning"].annotation
        == RunDefaults.model_fields["reasoning"].annotation
    )
