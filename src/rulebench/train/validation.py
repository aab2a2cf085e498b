"""Turning a pydantic validation failure of a training option into one ConfigError line."""

from collections.abc import Mapping
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from rulebench.core.errors import ConfigError

ConfigT = TypeVar("ConfigT", bound=BaseModel)


def parse_config(config_type: type[ConfigT], values: Mapping[str, object], where: str) -> ConfigT:
    """Validate options into a config model; a bad value is a ConfigError naming the option.

    The CLI and library callers pass plain values; pydantic's multi-line report would not fit
    the one red line the CLI prints, so each problem becomes "option: message".
    """
    try:
        return config_type.model_validate(dict(values))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'options'}: {error['msg']}"
            for error in exc.errors(include_url=False)
        )
        raise ConfigError(f"{where}: {problems}") from None
