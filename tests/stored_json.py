"""Typed steps into stored JSON (run configs, report numbers, export records) for tests.

A stored value is a `JsonValue` (any JSON): each step checks the shape the test expects, so a
wrong shape fails at the step that expected it and mypy knows the type after it.
"""

from pydantic import JsonValue


def json_object(value: JsonValue) -> dict[str, JsonValue]:
    """`value` as a JSON object."""
    assert isinstance(value, dict), f"expected a JSON object, got {value!r}"
    return value


def json_list(value: JsonValue) -> list[JsonValue]:
    """`value` as a JSON array."""
    assert isinstance(value, list), f"expected a JSON array, got {value!r}"
    return value


def json_at(value: JsonValue, *path: str | int) -> JsonValue:
    """The value at `path` under `value`: a str steps into an object, an int into an array."""
    for step in path:
        value = json_object(value)[step] if isinstance(step, str) else json_list(value)[step]
    return value
