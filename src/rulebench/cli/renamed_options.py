"""Old option spellings: still accepted for one release, with one warning line."""

from typing import TypeVar

from rulebench.cli.console import err
from rulebench.core.errors import ConfigError
from rulebench.core.renamed import renamed_message

T = TypeVar("T")


def warn_renamed(old: str, new: str) -> None:
    """Print the one deprecation line for an old spelling (an option or a command)."""
    err.print(f"[yellow]warning:[/] {renamed_message(old, new)}", highlight=False)


def pick_renamed(new_value: T | None, old_value: T | None, *, new: str, old: str) -> T | None:
    """The value given under the new option, or under its old spelling (with a warning).

    Declare the old spelling as a hidden option beside the new one and pass both here.

    Raises:
        ConfigError: both spellings were given.
    """
    if old_value is None:
        return new_value
    if new_value is not None:
        raise ConfigError(f"give {new} only ({old} is its old spelling)")
    warn_renamed(old, new)
    return old_value
