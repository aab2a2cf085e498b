"""Small Markdown helpers: tables and percentages with their intervals."""

from collections.abc import Sequence

from rulebench.core.stats import Proportion


def percent(value: Proportion | None) -> str:
    """`62.5 [40.9-80.0]`, or `-` when there is nothing to show."""
    if value is None or not value.n:
        return "-"
    return f"{100 * value.value:.1f} [{100 * value.low:.1f}-{100 * value.high:.1f}]"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub-flavoured Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
