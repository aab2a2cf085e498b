"""The two JSONL record layouts of official RuLES test data, typed as released.

Upstream keeps one file per behavior (`<Scenario>_<behavior>.jsonl`, fields `id`, `category`,
`params`, `messages`); a widely used redistribution merges them into one file per suite and
bucket (fields `params_json`, `round`, `scenario`, `scenario_label`, `suite`, `bucket_category`).
Which layout a line uses is decided per line, so a hand-merged file still reads.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

ROLES: dict[str, Literal["system", "user", "assistant"]] = {
    "system": "system",
    "user": "user",
    "assistant": "assistant",
}
"""Lowercased role -> our role; upstream's redteam data spells them in upper case (`USER`)."""

MERGED_MARKERS = frozenset({"params_json", "scenario_label"})
"""Fields only the merged layout has: a line holding either is read as merged."""


class RawMessage(BaseModel):
    """One `{role, content}` entry as released; the role is checked after lowercasing."""

    model_config = ConfigDict(frozen=True, extra="ignore", strict=True)

    role: str
    content: str


class PerFileRecord(BaseModel):
    """A line of upstream's per-behavior files; the behavior is the file's stem."""

    model_config = ConfigDict(frozen=True, extra="allow", strict=True)

    id: str | None = None
    """A uuid in upstream's files; missing ids get a content hash."""
    category: str | None = None
    """Attack strategy (redteam) or round (benign, basic); None reads as "default"."""
    params: dict[str, JsonValue]
    messages: list[RawMessage]


class MergedRecord(BaseModel):
    """A line of the merged redistribution: one file per suite and bucket."""

    model_config = ConfigDict(frozen=True, extra="allow", strict=True)

    id: str | None = None
    messages: list[RawMessage]
    params_json: str
    """The params object serialized as a JSON string."""
    round: str | int | None = None
    """The category (strategy or round), named `round` in this layout."""
    scenario: str
    scenario_label: str
    """The behavior: upstream's per-file stem (e.g. "Authentication_provide")."""
    suite: str | None = None
    bucket_category: str | None = None
    """harmless or helpful, as the redistribution labels it (kept as metadata)."""


def describe_error(exc: ValidationError) -> str:
    """The first validation problem as "field 'messages[2].role': Input should be ..."."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    field = field_path(first["loc"])
    more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
    return f"field '{field}': {first['msg']}{more}"


def field_path(loc: tuple[int | str, ...]) -> str:
    """A pydantic location as the JSON path a user would look for: `messages[2].role`."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part in {"str", "int", "none"}:
            continue  # union branch names, not fields
        else:
            path += f".{part}" if path else part
    return path or "(record)"


def json_kind(value: object) -> str:
    """A JSON value's kind in words, for "expected an object, got a list" messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return "a string" if isinstance(value, str) else type(value).__name__
