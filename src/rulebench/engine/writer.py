"""Commits item results and cache entries from one worker thread, so the event loop never blocks.

Batches grow with load: the thread waits for the first write, then takes everything else already
queued and commits it in one transaction. An idle writer therefore commits each result as soon as
it arrives (a SIGKILL loses nothing that finished), while a busy one amortises commits.
"""

import logging
import queue
import sqlite3
import threading
from pathlib import Path
from typing import NamedTuple

from rulebench.core.errors import StoreError
from rulebench.core.items import ItemResult
from rulebench.engine.records import RESULT_COLUMNS, result_to_row

logger = logging.getLogger(__name__)

MAX_BATCH = 2000

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


class _ResultWrite(NamedTuple):
    run_id: str
    result: ItemResult


class _Flush(NamedTuple):
    done: threading.Event


_Write = _ResultWrite | CacheRow | _Flush | None


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
        self._queue: queue.SimpleQueue[_Write] = queue.SimpleQueue()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._loop, name="rulebench-store", daemon=True)
        self._thread.start()

    def put_result(self, run_id: str, result: ItemResult) -> None:
        """Queue a result for commit."""
        self._check()
        self._queue.put(_ResultWrite(run_id, result))

    def put_cache(self, row: CacheRow) -> None:
        """Queue a cache entry for commit."""
        self._check()
        self._queue.put(row)

    def flush(self) -> None:
        """Block until everything queued so far is committed."""
        done = threading.Event()
        self._queue.put(_Flush(done))
        while not done.wait(0.1):
            self._check()
        self._check()

    def close(self) -> None:
        """Commit what is queued and stop the thread; raise if a write failed."""
        if self._thread.is_alive():
            self._queue.put(None)
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
            while self._drain(connection):
                pass
        except sqlite3.Error as exc:
            logger.error("store write failed: %s", exc)
            self._error = exc
        finally:
            connection.close()

    def _drain(self, connection: sqlite3.Connection) -> bool:
        """Write one batch; return False once asked to stop."""
        batch = [self._queue.get()]
        while len(batch) < MAX_BATCH:
            try:
                batch.append(self._queue.get_nowait())
            except queue.Empty:
                break
        results = [result_to_row(w.run_id, w.result) for w in batch if isinstance(w, _ResultWrite)]
        caches = [w for w in batch if isinstance(w, CacheRow)]
        if results or caches:
            with connection:
                connection.execute("BEGIN")
                connection.executemany(_UPSERT_RESULT, results)
                connection.executemany(_INSERT_CACHE, caches)
        for write in batch:
            if isinstance(write, _Flush):
                write.done.set()
        return None not in batch
