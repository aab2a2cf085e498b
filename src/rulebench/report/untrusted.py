"""Text from outside (model replies, server errors, specs, paths, data files) made safe to show.

Such text may hold terminal control sequences (clear screen, window title, OSC 52 clipboard
writes), bidirectional overrides that make it read differently from what it holds (U+202E),
and rich markup ("[/x]" raises MarkupError; "[link=...]" makes a link). Everything
that shows outside text in a terminal goes through these functions; Markdown has its own
escaping in `report.markdown`. Stored data is never changed: escaping happens at display.
"""

from rich.markup import escape
from rich.text import Text

from rulebench.core.text import escape_controls

__all__ = ["escape_controls", "escape_markup", "escape_plot_label", "safe_text"]


def escape_markup(text: object) -> str:
    """Outside text for a rich markup string: controls escaped, then `[...]` made literal."""
    return escape(escape_controls(str(text)))


def safe_text(text: object, style: str = "") -> Text:
    """Outside text as a rich `Text`: never parsed as markup, controls escaped."""
    return Text(escape_controls(str(text)), style=style)


def escape_plot_label(text: str) -> str:
    r"""A label matplotlib draws literally: `$` would start mathtext, a leading `_` hides it.

    Bad mathtext in a model name (say "$\frac{$") would raise when the figure is saved.
    """
    label = escape_controls(text).replace("$", r"\$")
    return f" {label}" if label.startswith("_") else label
