"""A config's validation error names each bad field as the caller spells it."""

import pytest
from pydantic import BaseModel, Field

from rulebench.core.errors import ConfigError
from rulebench.core.validation import validate_labelled


class _Limits(BaseModel):
    max_tokens: int = Field(default=10, ge=1)
    per_group: int = Field(default=5, ge=1)


def _flag(field: str) -> str:
    return "--" + field.replace("_", "-")


def test_each_bad_field_is_named_by_the_label() -> None:
    with pytest.raises(ConfigError) as caught:
        validate_labelled(_Limits, {"max_tokens": 0, "per_group": -1}, _flag)
    message = str(caught.value)
    assert message.startswith("--max-tokens: ")
    assert "; --per-group: " in message


def test_good_values_come_back_validated() -> None:
    assert validate_labelled(_Limits, {"per_group": 3}, _flag) == _Limits(per_group=3)
