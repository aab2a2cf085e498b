"""Opening the store file: refuse what is not ours untouched, read without writing, wait out locks.

Every connection to the store is made here, so the rules hold for all of them: a file that is
not a rulebench store is never modified (no WAL switch, no schema) before it is refused; a
reader never writes; and a lock held by another process is waited out, not turned into a lost
write.
"""

import logging
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from rulebench.core.errors import StoreError
from rulebench.engine.store.migrations import READ_OPTIONAL, applied_steps, migrate, pending_steps

logger = logging.getLogger(__name__)

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_S = 5.0
"""SQLite's own wait for a lock, per statement; `retry_while_busy` adds waits on top."""
_T = TypeVar("_T")


def is_busy(exc: BaseException) -> bool:
    """Whether an error means another connection holds a lock (worth waiting for)."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    message = str(exc).lower()
    return "locked" in message or "busy" in message


_FAULTS = ("malformed", "disk is full", "readonly", "disk i/o", "not a database")


def is_database_fault(exc: BaseException) -> bool:
    """Whether an error is the database's own (damaged, full, read-only), not a row's."""
    return isinstance(exc, sqlite3.DatabaseError) and any(
        fault in str(exc).lower() for fault in _FAULTS
    )


def retry_while_busy(operation: Callable[[], _T], give_up_after_s: float | None, what: str) -> _T:
    """Run `operation`, retrying with backoff (50 ms doubling to 2 s) while the database is busy.

    `give_up_after_s=None` retries for as long as it takes: the writer of a live run must
    never drop results because another process held a lock for a while.
    """
    started = time.monotonic()
    delay_s, warned_at = 0.05, started
    while True:
        try:
            return operation()
        except sqlite3.Error as exc:
            waited_s = time.monotonic() - started
            if not is_busy(exc) or (give_up_after_s is not None and waited_s >= give_up_after_s):
                raise
            if time.monotonic() - warned_at >= 10:
                warned_at = time.monotonic()
                logger.warning(
                    "%s: the store is locked by another process; waited %.0f s so far",
                    what,
                    waited_s,
                )
        time.sleep(delay_s)
        delay_s = min(delay_s * 2, 2.0)


def check_intact(connection: sqlite3.Connection, path: Path) -> None:
    """Refuse a store whose pages do not read back whole (SQLite's `PRAGMA quick_check`).

    A run's connections keep pages they have read in memory, so a page damaged under a
    running run can go unseen until the next command opens the file: this reads every page
    again. It checks the whole file, not the run's pages alone, as SQLite cannot check fewer;
    its cost grows with the store, not the run.

    Raises:
        StoreError: the check found damage or could not read the file, naming both.
    """
    # quick_check, not integrity_check or reading the run's rows back: the cheapest of the
    # three that still finds damage anywhere (docs/performance.md, "End-of-run check").
    try:
        rows = connection.execute("PRAGMA quick_check").fetchall()
    except sqlite3.Error as exc:
        problem = str(exc)
    else:
        found = [str(row[0]) for row in rows]
        if found == ["ok"]:
            return
        problem = " | ".join(" ".join(line.split()) for line in found[:3])
    raise StoreError(
        f"the results store {path} is damaged (SQLite's integrity check: {problem[:300]}): "
        "the run's results cannot be trusted; restore the file from a copy"
    )


def read_only_cause(path: Path) -> str | None:
    """Why the store at `path` cannot be written, if its file system or permissions say so.

    SQLite reports both as "unable to open database file" or "attempt to write a readonly
    database", which names neither the read-only medium nor the permission.
    """
    folder = path.parent.absolute()
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        is_read_only_medium = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        is_read_only_medium = False
    if is_read_only_medium:
        return (
            f"its file system is read-only ({folder} is on read-only media): to run or resume, "
            "copy the store to a writable disk (listing, showing and exporting work as it is)"
        )
    if path.exists() and not os.access(path, os.W_OK):
        return "the file is read-only (no permission to write it)"
    if not os.access(folder, os.W_OK):
        return f"no permission to write in {folder} (SQLite keeps its journal files next to it)"
    return None


def check_is_sqlite(path: Path) -> None:
    """Refuse a file that is not an SQLite database, before SQLite touches it."""
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise StoreError(f"cannot open the results store at {path}: {exc.strerror}") from None
    if header and header != SQLITE_HEADER:
        raise StoreError(f"{path} is not a rulebench store (not an SQLite database); left as it is")


def _configure(connection: sqlite3.Connection) -> sqlite3.Connection:
    connection.execute("PRAGMA foreign_keys=ON")
    return connection


def connect_writable(path: Path) -> sqlite3.Connection:
    """A read-write connection in WAL mode; call only once the file is known to be ours (or new)."""
    connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    try:
        # Switching a new file to WAL needs a moment's exclusive lock, which SQLite reports as
        # busy without waiting when another process opens the same new store at that instant.
        retry_while_busy(
            lambda: connection.execute("PRAGMA journal_mode=WAL").fetchone(), 60.0, str(path)
        )
        # WAL + NORMAL survives a killed process (not a power cut) and commits far faster.
        connection.execute("PRAGMA synchronous=NORMAL")
    except BaseException:
        connection.close()
        raise
    return _configure(connection)


def connect_readonly(path: Path) -> sqlite3.Connection:
    """A connection that can never write: for listing, showing, exporting and reports.

    On read-only media a WAL database cannot get its shared-memory file; then the file is
    opened as immutable, which is right there because nothing can change it.
    """
    uri = path.resolve().as_uri()
    for suffix in ("?mode=ro", "?mode=ro&immutable=1"):
        connection = sqlite3.connect(
            uri + suffix, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None
        )
        try:
            connection.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError as exc:
            connection.close()
            cannot_open = "unable to open" in str(exc) or "readonly" in str(exc)
            if is_busy(exc) or not cannot_open:
                raise
            continue
        return _configure(connection)
    raise StoreError(f"cannot open the results store at {path} for reading")


def open_store(path: Path, readonly: bool) -> sqlite3.Connection:
    """Open (or, unless `readonly`, create) the store, upgrading its schema when it is ours.

    A read-only open never writes, except once to upgrade a store made by an older rulebench
    when the file can be written; on read-only media such a store is refused with the reason.
    """
    if path.is_dir():
        raise StoreError(f"the results store {path} is a directory; pass a file with --store")
    if path.exists():
        check_is_sqlite(path)
    elif readonly:
        raise StoreError(
            f"no results store at {path} yet: start a run with `rulebench run` (or pass --store)"
        )
    if readonly:
        return _open_for_reading(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.stat().st_size:
        probe = connect_readonly(path)  # look before touching: a foreign file stays as it is
        try:
            applied_steps(probe, path)
        finally:
            probe.close()
    connection = connect_writable(path)
    try:
        retry_while_busy(lambda: migrate(connection, path), 60.0, str(path))
    except BaseException:
        connection.close()
        raise
    return connection


def _open_for_reading(path: Path) -> sqlite3.Connection:
    connection = connect_readonly(path)
    try:
        applied = applied_steps(connection, path)
        if applied is None:
            raise StoreError(f"{path} holds no rulebench results yet")
        pending = {name for name, _ in pending_steps(applied)}
        if not pending:
            return connection
        writable = os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
        if not writable and pending <= READ_OPTIONAL:
            return connection  # readable as it is; search says how to build its index
        connection.close()
        if not writable:
            raise StoreError(
                f"{path} was made by an older rulebench and cannot be upgraded here (read-only): "
                "open it once where it can be written"
            )
        upgrade = connect_writable(path)
        try:
            retry_while_busy(lambda: migrate(upgrade, path), 60.0, str(path))
        finally:
            upgrade.close()
        connection = connect_readonly(path)
    except BaseException:
        connection.close()
        raise
    return connection
