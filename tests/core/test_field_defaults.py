"""A config field's default, as the library reads it and a front end shows it."""

import pytest
from pydantic import BaseModel, Field

from rulebench.core.field_defaults import default_of, shown_default
from rulebench.scenarios.config import ScenarioConfig


class _Made(BaseModel):
    tags: tuple[str, ...] = Field(default_factory=lambda: ("a", "b"))
    cap: int | None = None
    needed: int


def test_the_default_is_the_configs() -> None:
    assert default_of(ScenarioConfig, "seed") == 0
    assert shown_default(ScenarioConfig, "suites") == "basic"
    with pytest.raises(KeyError):
        default_of(ScenarioConfig, "no_such_field")


def test_a_factory_a_none_and_a_required_field() -> None:
    assert shown_default(_Made, "tags") == "a, b"
    assert shown_default(_Made, "cap") == "none"
    assert shown_default(_Made, "cap", none="all") == "all"
    with pytest.raises(KeyError, match=r"_Made\.needed has no default"):
        default_of(_Made, "needed")
