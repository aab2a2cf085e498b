"""Group sizes as configs and experiment files spell them."""

from typing import Annotated

from pydantic import BeforeValidator, Field


def _all_is_none(value: object) -> object:
    """The word "all" reads as None: TOML has no null, so an experiment file says "all"."""
    return None if value == "all" else value


PerGroup = Annotated[Annotated[int, Field(ge=1)] | None, BeforeValidator(_all_is_none)]
"""Items per group, or None ("all" in a file): every item of the group."""
