"""A clock whose sleeps only move its time forward, for cool-down and rate-limit tests."""

import asyncio


class FakeClock:
    """Starts at 1000 s; `sleep(s)` adds s at once, then lets other tasks run."""

    def __init__(self, start_s: float = 1000.0) -> None:
        self.time_s = start_s
        self.slept: list[float] = []
        """Every wait asked for, in order."""

    def now(self) -> float:
        return self.time_s

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.time_s += seconds
        await asyncio.sleep(0)

    def advance(self, seconds: float) -> None:
        self.time_s += seconds
