"""Old names of options and config fields, accepted for one release with one warning line.

The vocabulary was unified (one name per concept across the CLI, the API and experiment
files); stored runs and users' experiment files still carry the old names, so they are read
under the new ones instead of being refused.
"""

import warnings
from collections.abc import Mapping
from typing import Any


def renamed_message(old: str, new: str) -> str:
    """The one line a user sees for an old spelling."""
    return f"{old} is now {new}; the old name still works for this release only"


def rename_fields(data: Any, renames: Mapping[str, str], owner: str) -> Any:
    """`data` (a config's raw fields) with old field names moved to their new names.

    Called from a config's `mode="before"` validator. Giving both names is an error rather
    than a silent choice between two values.

    Raises:
        ValueError: an old and a new name are both given (pydantic reports it on the field).
    """
    if not isinstance(data, Mapping) or not any(old in data for old in renames):
        return data
    fields = dict(data)
    for old, new in renames.items():
        if old not in fields:
            continue
        if new in fields:
            raise ValueError(f"{owner}: give {new} only ({old} is its old name)")
        # FutureWarning: shown to end users by default; the CLI prints it as one line.
        warnings.warn(
            renamed_message(f"{owner} field {old!r}", repr(new)), FutureWarning, stacklevel=2
        )
        fields[new] = fields.pop(old)
    return fields
