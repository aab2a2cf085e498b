"""Commits item results and cache entries from one worker thread, so the event loop never blocks.

Producers append rows to a list under a lock; the thread wakes every FLUSH_EVERY_S, takes everything
gathered and commits it in one transaction. Waking per result instead made the thread fight the
event loop for the GIL and cost throughput (docs/performance.md). A killed process loses at most the
last FLUSH_EVERY_S of finished items, which a resume runs again.

Nothing gathered is dropped: while another process holds a lock the batch is kept and retried
with backoff for as long as the writer lives; a row SQLite refuses is set aside alone (its
item then has no result, so the run cannot end "completed"); a database that refuses every
write (corrupt, full, read-only) stops the writer with that error.
"""

import contextlib
import errno
import functools
import logging
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from itertools import chain
from pathlib import Path
from typing import NamedTuple

from pydantic import JsonValue

from rulebench.core.errors import StoreError
from rulebench.core.items import ItemResult
from rulebench.engine.store.connection import connect_writable, is_busy, is_database_fault
from rulebench.engine.store.records import RESULT_COLUMNS, result_to_row

logger = logging.getLogger(__name__)

FLUSH_EVERY_S = 0.05
MAX_BUSY_WAIT_S = 1.0
"""Longest pause between two tries of a batch while the database is locked."""
BUSY_WARN_EVERY_S = 10.0

_RESULT_ROW = f"({', '.join('?' for _ in RESULT_COLUMNS)})"
_UPSERT_RESULTS = (
    f"INSERT INTO results ({', '.join(RESULT_COLUMNS)}) VALUES {{rows}} "
    "ON CONFLICT (run_id, item_id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in RESULT_COLUMNS[2:])
    # A finished result is final: only an error may be replaced (by a resume's retry).
    + " WHERE results.status = 'error'"
)
_INSERT_CACHES = (
    "INSERT OR IGNORE INTO cache (key, model, parts, completion, run_id, item_id, created_at) "
    "VALUES {rows}"
)
_CACHE_ROW = "(?, ?, ?, ?, ?, ?, ?)"
ROWS_PER_STATEMENT = 256
"""Rows inserted by one statement. A statement per row (executemany) gives up and retakes the
GIL around every row, and each retake can wait for the event loop's thread to let go: the
writer then costs the loop far more than its own work (bench/bench_engine.py shows it)."""


DISK_FULL = "disk full"
"""How a run's reason starts when the store's disk filled up (`runs list` and scripts match it)."""


def is_disk_full(exc: BaseException) -> bool:
    """Whether a write failed for want of space (SQLITE_FULL, or ENOSPC from the OS)."""
    if isinstance(exc, OSError):
        return exc.errno == errno.ENOSPC
    return isinstance(exc, sqlite3.OperationalError) and "disk is full" in str(exc).lower()


def write_failure(
    path: Path, exc: BaseException, *, store: str = "store", then: str = "resume the run"
) -> StoreError:
    """The one-line error for a failed store write; a full disk says so first, with the remedy.

    Args:
        path: the store's file.
        exc: what the write raised.
        store: how the message names the store.
        then: what to do once space is freed.
    """
    if is_disk_full(exc):
        return StoreError(
            f"{DISK_FULL}: cannot write to the {store} {path} ({exc}): free space on its disk, "
            f"then {then}"
        )
    return StoreError(f"cannot write to the {store} {path}: {exc}")


SMALL_REASON_CHARS = 500
"""Longest reason kept when a full disk leaves room only for a small write."""


def small_end_notes(status: str, notes: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """What a run's end keeps when a full disk allows one small write: its reason alone.

    A run that did not complete says the disk filled up, so `runs list` shows why it stopped.
    """
    reason = str(notes.get("reason") or "")
    if status != "completed" and not reason.startswith(DISK_FULL):
        reason = f"{DISK_FULL}: {reason or 'the store could not record the run'}"
    return {"reason": reason[:SMALL_REASON_CHARS]} if reason else {}


class CacheRow(NamedTuple):
    """A response to remember: its key, the parts the key hashes, and the completion as JSON."""

    key: str
    model: str
    parts_json: str
    completion_json: str
    run_id: str | None
    item_id: str | None
    created_at: str


class StoreWriter:
    """The store's only writer of results and cache rows while a run is going."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._results: list[tuple[object, ...]] = []
        self._caches: list[CacheRow] = []
        self._batch = _Batch([], [])
        """Rows taken from the producers and not committed yet (kept across busy retries)."""
        self._wake = threading.Event()
        self._stopping = False
        self._flushed = threading.Condition()
        self._generation = 0
        """Counts completed write passes, so flush() can wait for one that saw its rows."""
        self._error: BaseException | None = None
        self._running = True
        """False once the thread is done: is_alive() takes a lock, and producers ask per row."""
        self.rejected: list[tuple[str, str]] = []
        """(item id, reason) of result rows SQLite refused; those items have no stored result."""
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
        """Commit what is queued (waiting out locks), stop the thread; raise if a write failed."""
        self._stopping = True
        self._wake.set()
        self._thread.join()
        if self._error is not None:
            raise write_failure(self._path, self._error)

    def _check(self) -> None:
        if self._error is not None:
            raise write_failure(self._path, self._error)
        if not self._running:
            raise StoreError(f"the store writer for {self._path} has stopped")

    def _loop(self) -> None:
        connection: sqlite3.Connection | None = None
        try:
            connection = connect_writable(self._path)
            self._write_until_stopped(connection)
        except BaseException as exc:
            logger.debug("store write failed: %s", exc)  # raised to the caller by _check, close
            self._error = exc
        finally:
            self._running = False
            if connection is not None:
                connection.close()
            with self._flushed:
                self._flushed.notify_all()

    def _write_until_stopped(self, connection: sqlite3.Connection) -> None:
        pause_s, busy_since = FLUSH_EVERY_S, 0.0
        while True:
            self._wake.wait(pause_s)
            self._wake.clear()
            stopping = self._stopping
            with self._lock:
                self._batch.results.extend(self._results)
                self._batch.caches.extend(self._caches)
                self._results, self._caches = [], []
            try:
                self._commit(connection)
            except sqlite3.OperationalError as exc:
                if not is_busy(exc):
                    raise
                busy_since = self._note_busy(busy_since)
                pause_s = min(max(pause_s, FLUSH_EVERY_S) * 2, MAX_BUSY_WAIT_S)
                continue
            pause_s, busy_since = FLUSH_EVERY_S, 0.0
            with self._flushed:
                self._generation += 1
                self._flushed.notify_all()
            if stopping:
                return

    def _note_busy(self, busy_since: float) -> float:
        now = time.monotonic()
        if not busy_since:
            return now
        if now - busy_since >= BUSY_WARN_EVERY_S:
            logger.warning(
                "the store %s is locked by another process: %d results wait to be written "
                "(kept in memory and retried)",
                self._path,
                len(self._batch.results),
            )
            return now
        return busy_since

    def _commit(self, connection: sqlite3.Connection) -> None:
        batch = self._batch
        if not batch.results and not batch.caches:
            return
        try:
            _write(connection, batch.results, batch.caches)
        except (sqlite3.Error, ValueError) as exc:
            if is_busy(exc) or is_database_fault(exc):
                raise
            self._commit_one_by_one(connection, exc)
        self._batch = _Batch([], [])

    def _commit_one_by_one(self, connection: sqlite3.Connection, first: Exception) -> None:
        """Set aside the rows SQLite refuses and keep the rest.

        When every result row of a batch of several is refused, the database is at fault,
        not the rows: that stops the writer.
        """
        refused: list[tuple[str, str]] = []
        for row in self._batch.results:
            try:
                _write(connection, [row], [])
            except (sqlite3.Error, ValueError) as exc:
                if is_busy(exc):
                    raise
                refused.append((str(row[1]), str(exc)))
        if len(refused) > 1 and len(refused) == len(self._batch.results):
            raise first
        for cache_row in self._batch.caches:
            with contextlib.suppress(sqlite3.IntegrityError, ValueError):
                _write(connection, [], [cache_row])  # a cache entry is only an optimisation
        if refused:
            self.rejected.extend(refused)
            logger.error(
                "the store refused %d results (first: item %s: %s); those items have no result",
                len(refused),
                *refused[0],
            )


class _Batch(NamedTuple):
    results: list[tuple[object, ...]]
    caches: list[CacheRow]


def _write(
    connection: sqlite3.Connection,
    results: list[tuple[object, ...]],
    caches: list[CacheRow],
) -> None:
    # IMMEDIATE takes the write lock up front, so a busy database fails before any row is
    # written and the whole batch can simply be tried again.
    connection.execute("BEGIN IMMEDIATE")
    try:
        _insert_rows(connection, _UPSERT_RESULTS, _RESULT_ROW, results)
        _insert_rows(connection, _INSERT_CACHES, _CACHE_ROW, caches)
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise


def _insert_rows(
    connection: sqlite3.Connection,
    template: str,
    row: str,
    rows: Sequence[Sequence[object]],
) -> None:
    """Insert `rows` in order, many to a statement, as one statement per row would.

    Statements hold a power of two of rows (at most ROWS_PER_STATEMENT), so a handful of
    distinct statements serves every batch size and SQLite's statement cache keeps them.
    """
    # SQLite before 3.32 takes at most 999 parameters a statement.
    most = connection.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // row.count("?")
    start = 0
    while start < len(rows):
        size = min(ROWS_PER_STATEMENT, most, 1 << ((len(rows) - start).bit_length() - 1))
        chunk = rows[start : start + size]
        connection.execute(_statement(template, row, size), list(chain.from_iterable(chunk)))
        start += size


@functools.lru_cache(maxsize=64)
def _statement(template: str, row: str, size: int) -> str:
    return template.format(rows=", ".join([row] * size))
