"""`rulebench runs show RUN --item ID`: one stored item's transcript, thinking and verdict.

A terminal has no collapsed block: each reply's thinking is printed dimmed under its own
label, above the answer it led to, so the answer (what was scored) stays apart from it.
"""

from typing import TYPE_CHECKING

from rulebench.cli.console import out
from rulebench.report.item_facts import CUT_LABEL, indented, thinking_label, verdict_lines
from rulebench.report.untrusted import safe_text

if TYPE_CHECKING:
    from rulebench.core.items import ItemResult


def print_item(result: "ItemResult") -> None:
    """The transcript turn by turn, then the verdict; stored text is never markup."""
    for index, message in enumerate(result.messages):
        out.print(safe_text(f"{message.role}:", style="bold"), highlight=False)
        label = thinking_label(result, index)
        if label is not None:
            out.print(safe_text(f"  {label}:", style="yellow" if label == CUT_LABEL else "dim"))
            out.print(safe_text(indented(message.reasoning or ""), style="dim"), highlight=False)
            out.print(safe_text("  answer:", style="dim"))
        out.print(safe_text(indented(message.content)), highlight=False)
    if result.error is not None:
        out.print(safe_text(f"error: {result.error}", style="red"), highlight=False)
    if result.outcome is not None:
        for line in verdict_lines(result.outcome):
            out.print(safe_text(line), highlight=False)
