"""The two consoles: results go to stdout, progress, logs and errors to stderr.

Outside text (replies, server errors, specs, paths, data-file fields) is printed only through
`rulebench.report.untrusted`: as `safe_text(...)`, or `escape_markup(...)` inside markup.
"""

import logging
import warnings
from typing import TextIO

from rich.console import Console
from rich.text import Text

from rulebench.report.untrusted import escape_controls

# No ":name:" emoji codes: outside text such as "scripted/:smile:" must print as it is.
out = Console(emoji=False)
# Messages on stderr are never wrapped: a command line or run id split across lines is useless.
err = Console(stderr=True, soft_wrap=True, emoji=False)


class State:
    """Global flags set by the top-level callback."""

    debug = False


class _ControlSafeFormatter(logging.Formatter):
    """Shows control characters in log messages as escapes.

    Log messages quote server replies and file contents; a raw ESC in one would reach the
    terminal (rich drops only a few C0 codes, not ESC).
    """

    def format(self, record: logging.LogRecord) -> str:
        """The formatted message, control characters escaped."""
        return escape_controls(super().format(record))


def _warning_as_line(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """`warnings.showwarning` replacement: the message alone, as one `warning:` line.

    The same unwrapped line an old option spelling prints, so an old field name in a file
    reads like an old option on the command line (a log line would wrap at the terminal).
    """
    err.print(Text.assemble(("warning:", "yellow"), " ", escape_controls(str(message))))


def configure_logging(debug: bool) -> None:
    """Warnings (or everything, with --debug) to stderr, drawn by rich beside the progress bar."""
    from rich.logging import RichHandler

    handler = RichHandler(console=err, show_path=debug, show_time=debug, markup=False)
    handler.setFormatter(_ControlSafeFormatter("%(message)s"))
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING, handlers=[handler], format="%(message)s"
    )
    # Warnings (old field names among them) print as one line, not file:line.
    warnings.showwarning = _warning_as_line
    # Third-party chatter (HTTP internals) stays out even in debug mode.
    for noisy in ("asyncio", "urllib3", "filelock", "httpx"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
