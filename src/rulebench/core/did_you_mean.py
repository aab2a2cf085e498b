"""The hint an unknown name gets: the closest known name, so every registry words it alike."""

import difflib
from collections.abc import Iterable


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """A " Did you mean 'x'?" hint for the known name closest to `name` (any case), or ""."""
    by_lower = {found.lower(): found for found in known}
    close = difflib.get_close_matches(name.lower(), by_lower, n=1)
    return f" Did you mean '{by_lower[close[0]]}'?" if close else ""
