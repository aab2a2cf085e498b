"""A disk that fills up on cue, for tests of how runs end when the store cannot be written.

SQLite reports a full disk as sqlite3.OperationalError("database or disk is full")
(SQLITE_FULL); a real full file system needs root or a special mount, which CI lacks. So the
store's connections are wrapped: while `Disk.is_full`, every write statement fails that way.
A truncating WAL checkpoint gives back the log's space on a real disk; `frees_on_checkpoint`
models that.
"""

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

from rulebench.engine.store import connection as connection_module
from rulebench.engine.store import database as store_module
from rulebench.engine.store import writer as writer_module

_WRITES = ("INSERT", "UPDATE", "DELETE", "BEGIN IMMEDIATE")


@dataclass
class Disk:
    """The shared state of the fake disk."""

    is_full: bool = False
    fill_after_batches: int | None = None
    """Fill up once the writer has committed this many batches (0: before the first)."""
    frees_on_checkpoint: bool = False
    batches: int = 0


class FullDiskConnection:
    """A sqlite3 connection whose writes fail with SQLITE_FULL while the disk is full."""

    def __init__(self, connection: sqlite3.Connection, disk: Disk) -> None:
        self._connection = connection
        self._disk = disk

    def execute(self, sql: str, parameters: Any = ()) -> sqlite3.Cursor:
        if "wal_checkpoint" in sql and self._disk.frees_on_checkpoint:
            self._disk.is_full = False
        if self._disk.is_full and sql.lstrip().upper().startswith(_WRITES):
            raise sqlite3.OperationalError("database or disk is full")
        return self._connection.execute(sql, parameters)

    def __enter__(self) -> "FullDiskConnection":
        self._connection.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> bool:
        return self._connection.__exit__(kind, error, trace)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)


def install(monkeypatch: pytest.MonkeyPatch, disk: Disk) -> None:
    """Route the store's and the writer's connections through `disk`."""
    # The originals, from where they are defined; the store and the writer get the wrappers.
    open_store = connection_module.open_store
    connect_writable = connection_module.connect_writable
    write = writer_module._write

    def open_wrapped(path: Path, readonly: bool) -> Any:
        return FullDiskConnection(open_store(path, readonly), disk)

    def connect_wrapped(path: Path) -> Any:
        return FullDiskConnection(connect_writable(path), disk)

    def write_counted(connection: Any, results: Any, caches: Any) -> None:
        if disk.fill_after_batches is not None and disk.batches >= disk.fill_after_batches:
            disk.is_full = True
        write(connection, results, caches)
        disk.batches += 1

    monkeypatch.setattr(store_module, "open_store", open_wrapped)
    monkeypatch.setattr(writer_module, "connect_writable", connect_wrapped)
    monkeypatch.setattr(writer_module, "_write", write_counted)
