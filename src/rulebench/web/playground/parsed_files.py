"""Parsed save-folder files kept between requests, keyed by path and (mtime, size).

Reading a file of cases means validating every line; pages that summarise the whole save
folder would do it for every file on every request. A file appended to or rewritten gets a
new modification time or size, so its stamp tells a stale entry from a fresh one. The kept
files are bounded by their bytes on disk, the least recently used dropped first.
"""

import threading
from collections import OrderedDict
from pathlib import Path

from rulebench.core.cases import TestCase
from rulebench.core.errors import DataError

MAX_PARSED_BYTES = 64 * 1024 * 1024
"""Bytes on disk of the files whose parsed cases are kept."""

Stamp = tuple[int, int]
"""(st_mtime_ns, st_size) of a file when it was parsed."""
Parsed = tuple[TestCase, ...] | DataError


class ParsedFiles:
    """A bounded, thread-safe map of path -> (stamp, cases or the problem reading them)."""

    def __init__(self, max_bytes: int = MAX_PARSED_BYTES) -> None:
        self._max_bytes = max_bytes
        self._entries: OrderedDict[Path, tuple[Stamp, Parsed]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, path: Path, stamp: Stamp) -> Parsed | None:
        """What `path` parsed to when it had this stamp, or None (never read, or changed)."""
        with self._lock:
            entry = self._entries.get(path)
            if entry is None or entry[0] != stamp:
                return None
            self._entries.move_to_end(path)
            return entry[1]

    def put(self, path: Path, stamp: Stamp, parsed: Parsed) -> None:
        """Keep `parsed` for `path` at `stamp`, dropping the oldest files past the bound."""
        with self._lock:
            old = self._entries.pop(path, None)
            if old is not None:
                self._bytes -= old[0][1]
            if stamp[1] > self._max_bytes:
                return
            self._entries[path] = (stamp, parsed)
            self._bytes += stamp[1]
            while self._bytes > self._max_bytes:
                _, (dropped, _) = self._entries.popitem(last=False)
                self._bytes -= dropped[1]
