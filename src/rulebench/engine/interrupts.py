"""Ctrl-C and SIGTERM stop every long job the same way: the first cleanly, a second at once.

The first signal ends the work where it can end cleanly: it cancels an async job's main task
(the runner commits every finished result and records the run "interrupted"), or asks a step
loop that watches for it (GCG, training; `rulebench.core.stop`) to stop at its next step
boundary; any other work is interrupted where it stands. A second signal (someone impatient,
or a store locked by another process) raises KeyboardInterrupt where the program stands.
A front end ends with `stopped_line` (and `command_again`, to go on) and exit status
`Interrupts.exit_code`.
"""

import asyncio
import shlex
import signal
import threading
from collections.abc import Coroutine, Sequence
from types import FrameType, TracebackType
from typing import Any, TypeVar

from rulebench.core.credentials import redact_url
from rulebench.core.stop import request_stop

_T = TypeVar("_T")
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupts:
    """Signal handling for one job: `with interrupts: asyncio.run(interrupts.run(...))`."""

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
        """How the job was stopped, as the first word of its last line."""
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


def stopped_line(interrupts: Interrupts, what_is_kept: str, resume: str | None) -> str:
    """The one line a stopped job ends with: how it stopped, what is kept, how to go on."""
    how = f"{interrupts.how} twice:" if interrupts.count > 1 else f"{interrupts.how}."
    return f"{how} {what_is_kept}" + (f" Resume with: {resume}" if resume else "")


def command_again(args: Sequence[str], flag: str | None = None) -> str:
    """`rulebench ARGS` as a person would type it again to go on, with no secret in it.

    `flag` is added when the words lack it (`--resume` for a folder-based run). A URL's
    user:password and query values are shown as ***: a secret is never printed (type it
    again there).
    """
    words = [_redact_word(arg) for arg in args]
    added = [flag] if flag is not None and flag not in words else []
    return shlex.join(["rulebench", *words, *added])


def _redact_word(arg: str) -> str:
    """A command-line word with its URL redacted, `--base-url=URL` as well as `URL`."""
    if "://" not in arg:
        return arg
    option, equals, value = arg.partition("=")
    if equals and option.startswith("-") and "://" in value:
        return f"{option}={redact_url(value)}"
    return redact_url(arg)
