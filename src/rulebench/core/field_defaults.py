"""A config field's default, and that default as a front end shows it beside the option.

A front end's option whose default is a config field's takes None (so "not given" stays
distinguishable) and shows the config's value: `rulebench ... --help` through
`show_default=shown_default(...)`, the library where it names a default in its own words.
"""

from typing import Any

from pydantic import BaseModel


def default_of(model: type[BaseModel], field: str) -> Any:
    """The default `model` declares for `field`.

    Raises:
        KeyError: the model has no such field, or the field has no default.
    """
    info = model.model_fields[field]
    if info.is_required():
        raise KeyError(f"{model.__name__}.{field} has no default")
    return info.get_default(call_default_factory=True)


def shown_default(model: type[BaseModel], field: str, *, none: str = "none") -> str:
    """The config default as text (`none` names what None means, e.g. "all")."""
    value = default_of(model, field)
    if value is None:
        return none
    if isinstance(value, tuple | list):
        return ", ".join(str(part) for part in value)
    return str(value)
