"""A suite's size in a scenarios run, quick or official, and the reply limit each size plays at.

The size follows the cases, never how they were named: a suite plays at its official size when
the run plays every case it holds (a generated suite uncapped, or capped at or above its
largest behavior; a file or folder run whole), so `--full`, `--per-group 25` on basic and the
official basic files all play the same 475 cases at the same limit. (`suites.sizes` holds how
many cases each generated suite has per behavior.)
"""

from collections.abc import Iterable
from typing import Literal, get_args

Size = Literal["quick", "official"]
"""quick: a cap cut some of the suite's cases; official: the run plays every case it holds."""

QUICK_MAX_TOKENS = 128
"""Quick sizes: enough for a rule to be broken or kept, fast on a CPU model."""
FULL_MAX_TOKENS = 512
"""Official sizes: room for the long replies attacks provoke."""
REPLY_LIMITS: dict[Size, int] = {"quick": QUICK_MAX_TOKENS, "official": FULL_MAX_TOKENS}
"""The reply limit a suite's cases play at unless the run names one (`--max-tokens`)."""


def size_of(held: int, played: int) -> Size:
    """A suite's size from the cases it holds (after `--scenario`) and those the run plays."""
    return "official" if played >= held else "quick"


def run_size(sizes: Iterable[Size]) -> Size:
    """One size for several suites: quick when any is quick (a run-level limit covers them)."""
    return "quick" if "quick" in set(sizes) else "official"


def official_sizes_text() -> str:
    """The generated suites' official sizes in words, e.g. for `--help`.

    "25 per behavior in benign and basic, 39-41 in redteam", from `suites.sizes`.
    """
    from rulebench.scenarios.suites.sizes import Suite, official_sizes

    by_range: dict[str, list[str]] = {}
    for suite in get_args(Suite):
        counts = official_sizes(suite).values()
        low, high = min(counts), max(counts)
        by_range.setdefault(f"{low}" if low == high else f"{low}-{high}", []).append(suite)
    parts = [f"{span} in {' and '.join(suites)}" for span, suites in by_range.items()]
    parts[0] = parts[0].replace(" in ", " per behavior in ", 1)
    return ", ".join(parts)
