"""Ctrl-C and SIGTERM stop every long command the same way: the first cleanly, a second at once.

The first signal ends the work where it can end cleanly: it cancels an async command's main
task (the runner commits every finished result and records the run "interrupted"), or asks a
step loop that watches for it (GCG, training; `rulebench.core.stop`) to stop at its next step
boundary; any other work is interrupted where it stands. A second signal (someone impatient,
or a store locked by another process) raises KeyboardInterrupt where the program stands.
`stopped_by_signal` turns what is left into one line that says what is kept and how to go on,
and exit status 128 + the signal number (130 for Ctrl-C, 143 for SIGTERM).
"""

import asyncio
import signal
import threading
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Any, TypeVar

import typer

from rulebench.cli.console import err
from rulebench.core.stop import request_stop
from rulebench.report.untrusted import safe_text

_T = TypeVar("_T")
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupts:
    """Signal handling for one command: `with interrupts: asyncio.run(interrupts.run(...))`."""

    def __init__(self) -> None:
        self.count = 0
        self.signal_name: str | None = None
        """"SIGINT" or "SIGTERM": the first signal received, if any."""
        self._task: asyncio.Task[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._previous: dict[int, Any] = {}

    @property
    def exit_code(self) -> int:
        """The shell's convention: 128 + the signal number (130 for Ctrl-C, 143 for SIGTERM)."""
        return 143 if self.signal_name == "SIGTERM" else 130

    @property
    def how(self) -> str:
        """How the command was stopped, as the first word of its last line."""
        return "Terminated (SIGTERM)" if self.signal_name == "SIGTERM" else "Interrupted"

    async def run(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        """Await `coroutine` as the task the first signal cancels."""
        self._loop, self._task = asyncio.get_running_loop(), asyncio.current_task()
        return await coroutine

    def __enter__(self) -> "Interrupts":
        if threading.current_thread() is threading.main_thread():
            for signum in _SIGNALS:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.count += 1
        self.signal_name = self.signal_name or signal.Signals(signum).name
        if self.count > 1:
            raise KeyboardInterrupt
        task, loop = self._task, self._loop
        if task is not None and loop is not None and not task.done():
            loop.call_soon_threadsafe(task.cancel)
            return
        if request_stop():  # a step loop finishes its step, then stops
            return
        raise KeyboardInterrupt


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
    how = f"{interrupts.how} twice:" if interrupts.count > 1 else f"{interrupts.how}."
    line = f"{how} {what_is_kept}" + (f" Resume with: {resume}" if resume else "")
    err.print(safe_text(line), style="yellow", highlight=False, soft_wrap=True)


def same_command(flag: str | None = None) -> str:
    """The command line this process was started with, as a person would type it again.

    `flag` is added when the line lacks it (`--resume` for a folder-based run). A URL's
    user:password and query values are shown as ***: a secret is never printed (type it
    again there).
    """
    import shlex
    import sys

    args = [_redact_arg(arg) for arg in sys.argv[1:]]
    added = [flag] if flag is not None and flag not in args else []
    return shlex.join(["rulebench", *args, *added])


def _redact_arg(arg: str) -> str:
    """A command-line word with its URL redacted, `--base-url=URL` as well as `URL`."""
    from rulebench.core.credentials import redact_url

    if "://" not in arg:
        return arg
    option, equals, value = arg.partition("=")
    if equals and option.startswith("-") and "://" in value:
        return f"{option}={redact_url(value)}"
    return redact_url(arg)
