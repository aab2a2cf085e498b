"""Small Markdown helpers: tables, escaping of outside text, percentages with their intervals."""

import re
from collections.abc import Sequence

from rulebench.core.stats import Proportion
from rulebench.report.untrusted import escape_controls

# Backslash first, so the escapes added after it stay escapes. "](" is the only way into an
# inline link or image, so escaping its "(" disarms links while "[40.9-80.0]" stays as it is.
_MARKDOWN_ESCAPES = (
    ("\\", "\\\\"),
    ("|", "\\|"),
    ("`", "\\`"),
    ("](", "]\\("),
    ("&", "&amp;"),
    ("<", "&lt;"),
    (">", "&gt;"),
)
_LINE_BREAKS = re.compile(r"\r\n|[\r\n\t]")


def escape_markdown(text: str) -> str:
    r"""Outside text (names from data files, model labels) as one literal line of Markdown.

    A `|` would split a table cell, a newline end the row, `<script>` reach an HTML viewer and
    `[x](url)` become a link; numbers and intervals come out unchanged. Line breaks and tabs
    become spaces, other control characters their visible escape (`\x1b`).
    """
    text = escape_controls(_LINE_BREAKS.sub(" ", text))
    for raw, escaped in _MARKDOWN_ESCAPES:
        text = text.replace(raw, escaped)
    return text


def percent(value: Proportion | None) -> str:
    """`62.5 [40.9-80.0]`, or `-` when there is nothing to show."""
    if value is None or not value.n:
        return "-"
    return f"{100 * value.value:.1f} [{100 * value.low:.1f}-{100 * value.high:.1f}]"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub-flavoured Markdown table; every header and cell is escaped as outside text.

    Callers pass plain text, never Markdown: labels and group names come from data files and
    model specs, so escaping here is the one place that keeps every table well formed.
    """
    lines = [_row(header), "|" + "---|" * len(header)]
    lines += [_row(row) for row in rows]
    return "\n".join(lines)


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(escape_markdown(cell) for cell in cells) + " |"
