"""Pydantic's validation errors as the one line a ConfigError prints."""

from collections.abc import Callable, Mapping
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from rulebench.core.errors import ConfigError

ModelT = TypeVar("ModelT", bound=BaseModel)


def describe_problems(exc: ValidationError, nameless: str = "options") -> str:
    """Every error as "field: problem", joined by "; " (`nameless` for a whole-model error)."""
    return "; ".join(
        f"{'.'.join(str(part) for part in error['loc']) or nameless}: {error['msg']}"
        for error in exc.errors(include_url=False)
    )


def validate_into(model: type[ModelT], values: Mapping[str, object], where: str) -> ModelT:
    """Validate values into `model`; a bad value is one ConfigError line naming its field.

    Raises:
        ConfigError: "<where>: <field>: <problem>; ...".
    """
    try:
        return model.model_validate(dict(values))
    except ValidationError as exc:
        raise ConfigError(f"{where}: {describe_problems(exc)}") from None


def validate_labelled(
    model: type[ModelT], values: Mapping[str, object], label: Callable[[str], str]
) -> ModelT:
    """Validate values into `model`; each bad field is named as the caller spells it.

    A front end passes how it names a field (`--max-tokens` on the command line), so the one
    ConfigError line points at what the user typed.

    Raises:
        ConfigError: "<label(field)>: <problem>; ...".
    """
    try:
        return model.model_validate(dict(values))
    except ValidationError as exc:
        problems = "; ".join(
            f"{label(str(error['loc'][0]) if error['loc'] else '?')}: {error['msg']}"
            for error in exc.errors()
        )
        raise ConfigError(problems) from None
