"""Text from outside (model replies, server errors, specs, paths, data files) made safe to show.

Such text may hold terminal control sequences (clear screen, window title, OSC 52 clipboard
writes) and rich markup ("[/x]" raises MarkupError; "[link=...]" makes a link). Everything
that shows outside text in a terminal goes through these functions; Markdown has its own
escaping in `report.markdown`. Stored data is never changed: escaping happens at display.
"""

import re

from rich.markup import escape
from rich.text import Text

# C0 controls except tab and newline, DEL, and C1 controls (U+0080-U+009F: a terminal may read
# U+009B as CSI, so these are as dangerous as ESC itself).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _visible(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def escape_controls(text: str) -> str:
    r"""Show every control character but newline and tab as its escape, e.g. ESC as `\x1b`.

    The escape is four printable characters, so a reader still sees that a reply held a
    control sequence, but no terminal acts on it.
    """
    return _CONTROLS.sub(_visible, text)


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
