"""Saved KV cells of evaluated prompts, in host memory, so a later prompt can start from them.

Saving a prompt's cells and loading them into another slot costs a small fraction of
evaluating those tokens again, so every lane saves each prompt it
evaluates and looks here before evaluating the next. Cells restored into a slot are bit-identical
to evaluating the same tokens there (llamacpp_batch). Shared by the lanes of an engine.
"""

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rulebench.models.llamacpp.decode import TokenIds, common_prefix_length


@dataclass(eq=False)  # entries are told apart by identity, not by comparing token arrays
class _Entry:
    tokens: np.ndarray[Any, np.dtype[np.int32]]
    state: bytes
    used: int
    """Tick of the last lookup or save that touched it, for least-recently-used eviction."""


class PrefixCache:
    """The saved cells of recent prompts, least recently used dropped past `budget_bytes`."""

    def __init__(self, budget_bytes: int) -> None:
        self.budget_bytes = budget_bytes
        self._entries: list[_Entry] = []
        self._bytes = 0
        self._tick = 0
        self._lock = threading.Lock()

    @property
    def size_bytes(self) -> int:
        """Bytes of saved cells held now."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def shared_length(self, tokens: Sequence[int]) -> int:
        """The most leading tokens any saved prompt shares with `tokens` (no side effect)."""
        with self._lock:
            return max((self._shared(entry, tokens) for entry in self._entries), default=0)

    def longest(self, tokens: Sequence[int]) -> tuple[bytes, int] | None:
        """The saved cells sharing the longest prefix with `tokens`, and that prefix's length."""
        with self._lock:
            best, best_length = None, 0
            for entry in self._entries:
                length = self._shared(entry, tokens)
                if length > best_length:
                    best, best_length = entry, length
            if best is None:
                return None
            self._tick += 1
            best.used = self._tick
            return best.state, best_length

    def put(self, tokens: Sequence[int], state: bytes) -> None:
        """Save the cells of `tokens`; a saved prompt they extend is dropped, being covered."""
        if len(state) > self.budget_bytes or not tokens:
            return
        array = np.asarray(tokens, dtype=np.int32)
        with self._lock:
            self._tick += 1
            kept = []
            for entry in self._entries:
                shared = self._shared(entry, array)
                if shared == len(array):  # already covered by a longer or equal saved prompt
                    entry.used = self._tick
                    return
                if shared == len(entry.tokens):
                    self._bytes -= len(entry.state)
                else:
                    kept.append(entry)
            kept.append(_Entry(array, state, self._tick))
            self._bytes += len(state)
            while self._bytes > self.budget_bytes:
                oldest = min(kept, key=lambda entry: entry.used)
                kept.remove(oldest)
                self._bytes -= len(oldest.state)
            self._entries = kept

    @staticmethod
    def _shared(entry: _Entry, tokens: TokenIds) -> int:
        return common_prefix_length(entry.tokens, tokens)
