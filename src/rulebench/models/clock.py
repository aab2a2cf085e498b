"""The time that HTTP backends wait by: the real monotonic clock, or a fake one in tests.

Rate limits count requests over a minute and endpoints cool down for seconds; a test of either
must not sleep that long, so both read and wait through this protocol and tests pass a clock
whose `sleep` only moves its time forward.
"""

import asyncio
import time
from typing import Protocol


class Clock(Protocol):
    """Reads the time and waits."""

    def now(self) -> float:
        """Seconds on a monotonic scale (only differences mean anything)."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait `seconds` of this clock's time."""
        ...


class MonotonicClock:
    """The real clock: time.monotonic and asyncio.sleep."""

    def now(self) -> float:
        """time.monotonic()."""
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        """asyncio.sleep(seconds)."""
        await asyncio.sleep(seconds)


REAL_CLOCK = MonotonicClock()
