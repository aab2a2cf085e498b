"""How many requests a served model gets at once, found from its answers instead of a guess.

A served model's best number of requests in flight depends on its slots, its hardware and
whatever else it serves: a fixed default of 8 leaves a 16-slot llama.cpp server half idle
(docs/performance.md), while a high one overruns a rate-limited API. So a run whose
concurrency was not given measures it, as TCP finds a link's rate:

- The limit starts at the run's concurrency. Each window (the next 1.5 x `limit` replies to
  requests sent under the limit in force, at least MIN_WINDOW) measures replies per second
  over every request in flight, counted from the first of those replies (earlier ones are the
  old limit's). A window of `limit` replies can end inside one batch's burst of replies and
  read far off; half a batch more settles it (tests/models/test_adaptive_limit.py).
- Climbing: while a window's rate beats the best one so far by GAIN, the limit doubles, up to
  the ceiling. The first window that does not holds: at its own limit while its rate is
  within GAIN of the best (a server with room to spare loses nothing by the extra requests,
  and a window just after a change reads low while the server takes them in), else back at
  the best one's.
- Held, every PROBE_EVERY windows the limit tries a quarter more, and keeps it if the rate grows
  by GAIN over the window before; else it goes back.
- An overload answer (429, 503, a timeout) halves the limit, at most once per window (requests
  in flight together fail together), and forgets the best rate: the server has changed.
"""

import asyncio
import contextlib
import logging
import math
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Literal

from rulebench.models.clock import REAL_CLOCK, Clock

logger = logging.getLogger(__name__)

GAIN = 0.05
"""A rate counts as higher only 5% above the other (windows of one limit differ by a few %),
and as lower only 5% below."""
MIN_WINDOW = 8
"""Fewest replies a rate is measured over."""
PROBE_EVERY = 8
"""Held windows between two tries of a higher limit."""
PROBE_STEP = 1.25

Phase = Literal["climbing", "holding", "probing"]


@dataclass
class ConcurrencyControl:
    """The limit's decisions, from replies and their times alone (no I/O, so tests drive it)."""

    limit: int
    ceiling: int
    phase: Phase = "climbing"
    epoch: int = 0
    """Bumped at every change: a reply counts towards a window only if sent in the same epoch."""
    highest: int = 0
    backoffs: int = 0
    changes: int = 0
    _best: tuple[int, float] | None = None
    _held_rate: float = 0.0
    _held_windows: int = 0
    _window_start: tuple[float, int] | None = None
    """When the window's first reply came, and the replies counted before it."""
    _window_replies: int = 0
    _replies: int = 0
    _backed_off_in: int = -1
    start: int = field(init=False)

    def __post_init__(self) -> None:
        self.limit = max(1, min(self.limit, self.ceiling))
        self.start = self.highest = self.limit

    def replied(self, sent_in: int, now: float, overloaded: bool) -> None:
        """One request sent in epoch `sent_in` ended at `now`; `overloaded`: 429, 503, timeout."""
        self._replies += 1
        if overloaded:
            self._back_off(sent_in)
            return
        if sent_in != self.epoch:
            return
        if self._window_start is None:
            self._window_start = (now, self._replies)
            return
        self._window_replies += 1
        if self._window_replies >= max(3 * self.limit // 2, MIN_WINDOW):
            began, replies_before = self._window_start
            rate = (self._replies - replies_before) / max(now - began, 1e-9)
            self._decide(rate)

    def _climb(self, rate: float) -> None:
        """Double while the rate grows; where it stops, hold (here, or back where it was best)."""
        best = self._best
        if best is None or rate >= best[1] * (1 + GAIN):
            self._best = (self.limit, rate)
            self._set(min(self.ceiling, self.limit * 2), "climbing", rate)
            if self.limit == self._best[0]:  # at the ceiling
                self.phase = "holding"
        elif rate >= best[1] * (1 - GAIN):
            self._best = (self.limit, max(rate, best[1]))
            self._set(self.limit, "holding", rate)
        else:
            self._set(best[0], "holding", best[1])

    def _decide(self, rate: float) -> None:
        if self.phase == "climbing":
            self._climb(rate)
        elif self.phase == "probing":
            if rate >= self._held_rate * (1 + GAIN):
                self._best = (self.limit, rate)
                self._set(self.limit, "holding", rate)
            else:
                self._set(self._best[0] if self._best else self.limit, "holding", self._held_rate)
        else:
            self._held_rate, self._held_windows = rate, self._held_windows + 1
            if self._held_windows % PROBE_EVERY == 0 and self.limit < self.ceiling:
                probe = min(self.ceiling, math.ceil(self.limit * PROBE_STEP))
                self._set(probe, "probing", rate)
            else:
                self._new_window()

    def _back_off(self, sent_in: int) -> None:
        if self._backed_off_in >= sent_in:
            return  # its window was cut already: one halving per burst of failures
        self.backoffs += 1
        self._best = None
        self._backed_off_in = self.epoch
        self._set(max(1, self.limit // 2), "holding", 0.0)

    def _set(self, limit: int, phase: Phase, rate: float) -> None:
        if limit != self.limit:
            self.changes += 1
            logger.info("concurrency %d -> %d (%s; %.2f replies/s)", self.limit, limit, phase, rate)
        self.limit, self.phase = limit, phase
        self.highest = max(self.highest, limit)
        self._held_rate = rate if phase != "probing" else self._held_rate
        self.epoch += 1
        self._new_window()

    def _new_window(self) -> None:
        self._window_start, self._window_replies = None, 0

    def summary(self) -> str:
        """The run note: where the limit started, where it ended, and what moved it."""
        return (
            f"adaptive: {self.start} at the start, {self.limit} at the end (highest "
            f"{self.highest}, ceiling {self.ceiling}; {self.changes} changes, {self.backoffs} "
            "back-offs after 429/503/timeouts); give --concurrency to fix it"
        )


class AdaptiveGate:
    """Admits requests while fewer than the control's limit are in flight (asyncio)."""

    def __init__(self, control: ConcurrencyControl, clock: Clock = REAL_CLOCK) -> None:
        self.control = control
        self._clock = clock
        self._in_flight = 0
        self._waiting: deque[asyncio.Future[None]] = deque()

    async def acquire(self) -> int:
        """Wait for room under the limit; the epoch to hand back to `release`."""
        while self._in_flight >= self.control.limit:
            waiter = asyncio.get_running_loop().create_future()
            self._waiting.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter in self._waiting:
                    self._waiting.remove(waiter)
                elif waiter.done() and not waiter.cancelled():
                    self._wake()  # it was woken: hand the room on
                raise
        self._in_flight += 1
        return self.control.epoch

    def release(self, epoch: int, overloaded: bool) -> None:
        """The request sent in `epoch` ended (`overloaded`: a 429, 503 or timeout)."""
        self._in_flight -= 1
        self.control.replied(epoch, self._clock.now(), overloaded)
        self._wake()

    def _wake(self) -> None:
        room = self.control.limit - self._in_flight
        while room > 0 and self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(None)
                room -= 1


@contextlib.asynccontextmanager
async def admitted(
    gate: AdaptiveGate | None, is_overload: Callable[[BaseException], bool]
) -> AsyncIterator[None]:
    """Hold a place under `gate`'s limit for one request (no gate: no wait).

    A failure `is_overload` says is an overload lowers the limit; any other counts as a reply.
    """
    if gate is None:
        yield
        return
    epoch = await gate.acquire()
    overloaded = False
    try:
        yield
    except BaseException as exc:
        overloaded = is_overload(exc)
        raise
    finally:
        gate.release(epoch, overloaded)
