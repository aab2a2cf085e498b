"""Commits item results and cache entries from one worker thread, so the event loop never blocks.

Producers append rows to a list under a lock; the thread wakes every FLUSH_EVERY_S, takes
everything gathered and commits it in one transaction. Waking per result instead made the
thread fight the event loop for the GIL: measured 1,650 vs 2,400 items/s against a zero-latency
mock server. A killed process loses at most the last FLUSH_EVERY_S of finished items, which a
resume runs again.
"""

import logging
import sqlite3
import threading
from pathlib import Path
from typing import NamedTuple

from rulebench.core.errors import StoreError
from rulebench.core.items import ItemResult
from rulebench.engine.records import RESULT_COLUMNS, result_to_row

logger = logging.getLogger(__name__)

FLUSH_EVERY_S = 0.05

_UPSERT_RESULT = (
    f"INSERT INTO results ({', '.join(RESULT_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in RESULT_COLUMNS)}) "
    "ON CONFLICT (run_id, item_id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in RESULT_COLUMNS[2:])
    # A finished result is final: only an error may be replaced (by a resume's retry).
    + " WHERE results.status = 'error'"
)
_INSERT_CACHE = (
    "INSERT OR IGNORE INTO cache (key, model, parts, completion, run_id, item_id, created_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?)"
)


class CacheRow(NamedTuple):
    """A response to remember: its key, the parts the key hashes, and the completion as JSON."""

    key: str
    model: str
    parts_json: str
    completion_json: str
    run_id: str | None
    item_id: str | None
    created_at: str


def connect(path: Path) -> sqlite3.Connection:
    """Open the store file with the settings every connection needs."""
    connection = sqlite3.connect(path, timeout=30, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    # WAL + NORMAL survives a killed process (not a power cut) and commits far faster than FULL.
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute("PRAGMA foreign_keys=ON")
    return connection


class StoreWriter:
    """The store's only writer of results and cache rows while a run is going."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._results: list[tuple[object, ...]] = []
        self._caches: list[CacheRow] = []
        self._wake = threading.Event()
        self._stopping = False
        self._flushed = threading.Condition()
        self._generation = 0
        """Counts completed write passes, so flush() can wait for one that saw its rows."""
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._loop, name="rulebench-store", daemon=True)
        self._thread.start()

    def put_result(self, run_id: str, result: ItemResult) -> None:
        """Queue a result for commit (the row is built here, outside the writer thread)."""
        self._check()
        row = result_to_row(run_id, result)
        with self._lock:
            self._results.append(row)

    def put_cache(self, row: CacheRow) -> None:
        """Queue a cache entry for commit."""
        self._check()
        with self._lock:
            self._caches.append(row)

    def flush(self) -> None:
        """Block until everything queued so far is committed."""
        with self._flushed:
            target = self._generation + 2  # a pass that started after this call has finished
            self._wake.set()
            while self._generation < target and self._thread.is_alive():
                self._flushed.wait(0.1)
                self._wake.set()
        self._check()

    def close(self) -> None:
        """Commit what is queued and stop the thread; raise if a write failed."""
        self._stopping = True
        self._wake.set()
        self._thread.join()
        if self._error is not None:
            raise StoreError(f"cannot write to the store {self._path}: {self._error}")

    def _check(self) -> None:
        if self._error is not None:
            raise StoreError(f"cannot write to the store {self._path}: {self._error}")
        if not self._thread.is_alive():
            raise StoreError(f"the store writer for {self._path} has stopped")

    def _loop(self) -> None:
        try:
            connection = connect(self._path)
        except sqlite3.Error as exc:
            self._error = exc
            return
        try:
            while True:
                self._wake.wait(FLUSH_EVERY_S)
                self._wake.clear()
                stopping = self._stopping
                self._write_gathered(connection)
                if stopping:
                    return
        except sqlite3.Error as exc:
            logger.error("store write failed: %s", exc)
            self._error = exc
        finally:
            connection.close()
            with self._flushed:
                self._flushed.notify_all()

    def _write_gathered(self, connection: sqlite3.Connection) -> None:
        with self._lock:
            results, self._results = self._results, []
            caches, self._caches = self._caches, []
        if results or caches:
            with connection:
                connection.execute("BEGIN")
                connection.executemany(_UPSERT_RESULT, results)
                connection.executemany(_INSERT_CACHE, caches)
        with self._flushed:
            self._generation += 1
            self._flushed.notify_all()
