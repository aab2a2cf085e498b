"""Ctrl-C and SIGTERM stop a run the same way: the first stops it cleanly, a second at once.

The first signal cancels the run's main task, so the runner commits every finished result and
records the run "interrupted" before the process exits. A second signal (someone impatient,
or a store locked by another process) raises KeyboardInterrupt where the program stands.
"""

import asyncio
import signal
import threading
from collections.abc import Coroutine
from types import FrameType, TracebackType
from typing import Any, TypeVar

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
        task, loop = self._task, self._loop
        if self.count == 1 and task is not None and loop is not None and not task.done():
            loop.call_soon_threadsafe(task.cancel)
            return
        raise KeyboardInterrupt
