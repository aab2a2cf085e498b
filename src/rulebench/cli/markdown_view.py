"""Markdown reports on the terminal, with tables that never cut a cell.

rich's Markdown tables cut what does not fit with an ellipsis, so at 80 columns a paired
comparison showed `scripted/ec…` for both `scripted/echo` and `scripted/rules`. Here columns of
single words (model specs, tasks, counts) keep their width where the line has room for every
column's longest word, the others wrap, and a word too long for its column folds onto the next
line rather than being cut.
"""

from typing import ClassVar

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown, MarkdownElement, TableElement
from rich.table import Table
from rich.text import Text

_CELL_PADDING = 2
"""Columns a cell's padding takes in the table drawn (one space each side)."""


class _UncutTable(TableElement):
    """A Markdown table drawn as rich's is, folding cells instead of cutting them."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        """The table, its one-word columns kept whole where they fit (`_whole_columns`)."""
        header = self.header.row.cells if self.header and self.header.row else []
        rows = [[cell.content for cell in row.cells] for row in self.body.rows] if self.body else []
        headings = [cell.content for cell in header]
        columns = [
            [heading, *(row[i] for row in rows if i < len(row))]
            for i, heading in enumerate(headings)
        ]
        kept = _whole_columns(columns, options.max_width)
        table = Table(
            box=box.SIMPLE,
            pad_edge=False,
            style="markdown.table.border",
            show_edge=True,
            collapse_padding=True,
        )
        for index, heading in enumerate(headings):
            shown = heading.copy()
            shown.stylize("markdown.table.header")
            table.add_column(shown, overflow="fold", no_wrap=index in kept)
        for row in rows:
            table.add_row(*row)
        yield table


def _whole_columns(columns: list[list[Text]], max_width: int) -> set[int]:
    """The columns to draw unwrapped: those whose every cell is one word, where they fit.

    When every column's longest word fits on the line, all one-word columns stay whole and
    the others wrap between words. Otherwise only the first column, which names the row, stays
    whole if it takes a third of the line at most; everything else folds.
    """
    one_word = [
        i for i, cells in enumerate(columns) if all(len(c.plain.split()) <= 1 for c in cells)
    ]
    longest = [
        max(cell_len(word) for cell in cells for word in cell.plain.split() or [""])
        for cells in columns
    ]
    if sum(width + _CELL_PADDING for width in longest) <= max_width:
        return set(one_word)
    if one_word[:1] == [0] and longest[0] + _CELL_PADDING <= max_width // 3:
        return {0}
    return set()


class TerminalMarkdown(Markdown):
    """rich's Markdown, except that its tables fold cells that do not fit instead of cutting."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "table_open": _UncutTable,
    }
