"""Ctrl-C and SIGTERM for the commands: the line a stopped command ends with, and its exit.

How a signal stops the work (the first cleanly, a second at once) is
`rulebench.engine.interrupts`'s; here `stopped_by_signal` turns what is left into one line
that says what is kept and how to go on, and exit status 128 + the signal number (130 for
Ctrl-C, 143 for SIGTERM).
"""

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import typer

from rulebench.cli.console import err
from rulebench.engine.interrupts import Interrupts, stopped_line
from rulebench.report.untrusted import safe_text


@contextmanager
def stopped_by_signal(
    what_is_kept: Callable[[], str], resume: Callable[[], str | None]
) -> Iterator[Interrupts]:
    """Handle SIGINT and SIGTERM for a synchronous command's block.

    Args:
        what_is_kept: the sentence after "Interrupted." (read once the work has stopped).
        resume: the command that goes on, or None when there is nothing to resume.

    Raises:
        typer.Exit: with 130 or 143, after the line saying what is kept and how to go on.
    """
    interrupts = Interrupts()
    try:
        with interrupts:
            yield interrupts
    except (KeyboardInterrupt, asyncio.CancelledError):
        say_interrupted(interrupts, what_is_kept(), resume())
        raise typer.Exit(interrupts.exit_code) from None


def say_interrupted(interrupts: Interrupts, what_is_kept: str, resume: str | None) -> None:
    """The one line a stopped command ends with: how it stopped, what is kept, how to go on."""
    line = stopped_line(interrupts, what_is_kept, resume)
    err.print(safe_text(line), style="yellow", highlight=False, soft_wrap=True)


def same_command(flag: str | None = None) -> str:
    """The command line this process was started with, to go on (`command_again`, no secret)."""
    import sys

    from rulebench.engine.interrupts import command_again

    return command_again(sys.argv[1:], flag)
