"""How much one visitor of a shared playground may do: conversations, saves, model calls.

A server others reach (`rulebench serve --allow-remote`) is shared by people who each hold a
visitor cookie; without limits one of them could start games until the others' are crowded
out, fill the save folder, or keep the model busy. Each allowance is a sliding window counted
twice: per visitor cookie, and per client address (a visitor who drops the cookie is still one
address; an address is allowed `visitors_per_address` times a visitor's allowance, as people
behind one proxy or NAT share it). Counts live in this process's memory, so a restart resets
them. On loopback the server is one person's, and nothing is limited.
"""

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rulebench.core.errors import ConfigError
from rulebench.web.clients import client_address

Action = Literal["conversation", "save", "new_file", "model_call"]
_WINDOWS_S: dict[Action, float] = {
    "conversation": 3600.0,
    "save": 3600.0,
    "new_file": 24 * 3600.0,
    "model_call": 60.0,
}
_WHAT: dict[Action, str] = {
    "conversation": "new conversations an hour",
    "save": "saved cases an hour",
    "new_file": "new files in the save folder a day",
    "model_call": "model calls a minute",
}
MAX_TRACKED_KEYS = 10_000
"""Visitors and addresses counted at once; the longest idle is forgotten past that."""


class Quotas(BaseModel):
    """Per-visitor allowances (None: no limit); the defaults are a shared server's."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    conversations_per_hour: int | None = Field(default=30, ge=1)
    saves_per_hour: int | None = Field(default=60, ge=1)
    """Cases a visitor saves (appended to a file of the save folder)."""
    new_files_per_day: int | None = Field(default=10, ge=1)
    """Files a visitor creates in the save folder (appending to an existing one is a save)."""
    model_calls_per_minute: int | None = Field(default=20, ge=1)
    """Replies asked of a model (a replayed case asks one per user turn)."""
    visitors_per_address: int = Field(default=5, ge=1)
    """An address's allowance in visitors' allowances (a team behind one proxy shares one)."""

    @classmethod
    def unlimited(cls) -> "Quotas":
        """No limit at all: a server only its own machine reaches."""
        return cls(
            conversations_per_hour=None,
            saves_per_hour=None,
            new_files_per_day=None,
            model_calls_per_minute=None,
        )

    def limit(self, action: Action) -> int | None:
        """The visitor's allowance for `action` in its window."""
        return {
            "conversation": self.conversations_per_hour,
            "save": self.saves_per_hour,
            "new_file": self.new_files_per_day,
            "model_call": self.model_calls_per_minute,
        }[action]


class QuotaExceeded(ConfigError):
    """A visitor asked for more than its allowance (pages answer 429)."""

    def __init__(self, message: str, wait_s: float = 0.0) -> None:
        super().__init__(message)
        self.wait_s = wait_s
        """Seconds until the window may have room (0: waiting would not help)."""


class VisitorLimits:
    """Counts what each visitor and client address did, and refuses what goes past a quota."""

    def __init__(self, quotas: Quotas, clock: Callable[[], float] = time.monotonic) -> None:
        self.quotas = quotas
        self._clock = clock
        self._events: dict[tuple[Action, str], deque[float]] = {}
        # Pages answer from several threads and event loops; held for dictionary work only.
        self._lock = threading.Lock()

    def check_new_conversation(self, visitor: str) -> None:
        """Count a new conversation; QuotaExceeded when the visitor has started too many."""
        self._take(visitor, [("conversation", 1)])

    def check_model_call(self, visitor: str, calls: int = 1) -> None:
        """Count `calls` model replies about to be asked; QuotaExceeded past the allowance."""
        self._take(visitor, [("model_call", calls)])

    def check_fits(self, calls: int, what: str = "this") -> None:
        """QuotaExceeded when one piece of work needs more model calls than a window allows.

        Such work could never start, however long it waited; anything smaller may wait.
        """
        limit = self.quotas.model_calls_per_minute
        if limit is not None and calls > limit:
            raise QuotaExceeded(f"{what} needs {calls} model calls; {limit} per minute allowed")

    def model_call_wait_s(self, visitor: str, calls: int) -> float:
        """Take `calls` model calls now (0.0), or say how long until the window may have room.

        Nothing is counted when the answer is a wait: the caller asks again after it.
        """
        try:
            self._take(visitor, [("model_call", calls)])
        except QuotaExceeded as exc:
            return max(exc.wait_s, 0.001)
        return 0.0

    def check_save(self, visitor: str, creates_file: bool) -> None:
        """Count a saved case (and a new file if it makes one); QuotaExceeded past either."""
        wanted: list[tuple[Action, int]] = [("save", 1)]
        self._take(visitor, [*wanted, ("new_file", 1)] if creates_file else wanted)

    def _take(self, visitor: str, wanted: list[tuple[Action, int]]) -> None:
        """Check every allowance, then count them all, under one lock hold.

        Two requests of one visitor cannot both take the last free slot, and a refusal
        counts nothing.
        """
        now = self._clock()
        with self._lock:
            for action, count in wanted:
                self._check(action, visitor, count, now)
            for action, count in wanted:
                if self.quotas.limit(action) is not None:
                    for key in self._keys(action, visitor):
                        self._events.setdefault(key, deque()).extend([now] * count)
            self._forget_idle()

    def _check(self, action: Action, visitor: str, count: int, now: float) -> None:
        limit = self.quotas.limit(action)
        if limit is None:
            return
        window_s = _WINDOWS_S[action]
        for key in self._keys(action, visitor):
            events = self._events.get(key)
            while events and events[0] <= now - window_s:
                events.popleft()
            is_visitor = key[1].startswith("v:")
            allowed = limit if is_visitor else limit * self.quotas.visitors_per_address
            if count > allowed - len(events or ()):
                wait_s = window_s - (now - events[0]) if events else window_s
                raise QuotaExceeded(_message(action, allowed, is_visitor, wait_s), wait_s)

    def _keys(self, action: Action, visitor: str) -> list[tuple[Action, str]]:
        keys: list[tuple[Action, str]] = [(action, f"v:{visitor}")]
        address = client_address.get()
        if address is not None:
            keys.append((action, f"a:{address}"))
        return keys

    def _forget_idle(self) -> None:
        """Keep the map bounded: drop empty counts, then the longest idle past the cap."""
        if len(self._events) <= MAX_TRACKED_KEYS:
            return
        for key in [k for k, events in self._events.items() if not events]:
            del self._events[key]
        while len(self._events) > MAX_TRACKED_KEYS:
            oldest = min(self._events, key=lambda k: self._events[k][-1])
            del self._events[oldest]


def _message(action: Action, allowed: int, is_visitor: bool, wait_s: float) -> str:
    who = "visitor" if is_visitor else "client address"
    minutes = max(1, round(wait_s / 60))
    return (
        f"quota reached: this shared server allows {allowed} {_WHAT[action]} per {who}, and "
        f"they are used; try again in about {minutes} minute{'s' if minutes > 1 else ''}"
    )
