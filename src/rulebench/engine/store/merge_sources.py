"""The stores a merge reads: checked whole before anything is written, attached read-only.

A merge refuses, before the target changes, a source that is missing, not a store, damaged
(SQLite's quick_check reads every page), written by a newer rulebench (naming both versions)
or locked by another process; each is one line.
"""

import sqlite3
from pathlib import Path

from rulebench.core.errors import StoreError
from rulebench.core.version import __version__
from rulebench.engine.store.connection import connect_readonly
from rulebench.engine.store.database import Store
from rulebench.engine.store.migrations import KNOWN


def check_source(source: Path, target: Path) -> None:
    """Refuse a source the merge cannot read whole, in one line naming it and why."""
    if source.resolve() == target.resolve():
        raise StoreError(f"{source}: a store cannot be merged into itself")
    try:
        with Store(source, readonly=True) as store:
            store.check_intact()
    except StoreError as exc:
        raise _newer_store(source, exc) from None
    except sqlite3.Error as exc:
        raise StoreError(f"cannot merge {source}: {_sqlite_problem(exc)}") from None


def check_target(target: Path) -> None:
    """Create the target, or upgrade its schema; refuse one a newer rulebench wrote."""
    try:
        with Store(target):
            pass
    except StoreError as exc:
        raise _newer_store(target, exc) from None
    except sqlite3.Error as exc:
        raise StoreError(f"cannot merge into {target}: {_sqlite_problem(exc)}") from None


def attach_source(connection: sqlite3.Connection, source: Path) -> None:
    """Attach `source` as `src`, read-only where SQLite takes URIs (it does by default).

    Read-only matters beyond safety: BEGIN IMMEDIATE takes the write lock of every database
    attached writable, so a merge would wait for a shard still writing its own store.
    """
    if _takes_uris(connection):
        connection.execute("ATTACH DATABASE ? AS src", (source.resolve().as_uri() + "?mode=ro",))
    else:  # pragma: no cover - SQLite built without SQLITE_USE_URI
        connection.execute("ATTACH DATABASE ? AS src", (str(source),))


def _takes_uris(connection: sqlite3.Connection) -> bool:
    options = {row[0] for row in connection.execute("PRAGMA compile_options")}
    return "USE_URI" in options or "USE_URI=1" in options


def _sqlite_problem(exc: sqlite3.Error) -> str:
    message = str(exc)
    if "locked" in message or "busy" in message:
        return f"{message}: another process holds it locked; merge again once it is done"
    return message


def _newer_store(path: Path, refusal: StoreError) -> StoreError:
    """The refusal of a store a newer rulebench wrote, naming its version and ours."""
    if "newer rulebench" not in str(refusal):
        return refusal
    found = _newer_version(path)
    if found is None:
        return refusal
    theirs, step = found
    return StoreError(
        f"{path} was written by {theirs}, newer than this rulebench {__version__} (its schema "
        f"step {step} is unknown here): upgrade rulebench to merge it"
    )


def _newer_version(path: Path) -> tuple[str, str] | None:
    """The rulebench that last ran into `path` and the first schema step unknown here."""
    try:
        connection = connect_readonly(path)
    except (sqlite3.Error, StoreError):
        return None
    try:
        steps = {row[0] for row in connection.execute("SELECT name FROM _migrations")}
        unknown = sorted(steps - KNOWN)
        if not unknown:
            return None
        row = connection.execute(
            "SELECT version FROM runs ORDER BY started_at DESC LIMIT 1"
        ).fetchone()
    except sqlite3.Error:
        return None
    finally:
        connection.close()
    return (f"rulebench {row[0]}" if row else "a newer rulebench"), unknown[0]
