"""Two runs of two stores paired in SQL, as if one store held both (the explorer's compare).

The explorer pairs two runs' items with one join over the results table (`StoreBrowser`),
never both runs in memory. For runs of different stores, one read-only connection attaches
the second file and a temporary view named `results` (the temp schema is searched first)
joins the two runs' rows; each side is read through its own store's primary key, so the join
costs what it costs in one store. Neither file is written: the view lives in memory.
"""

import contextlib
import sqlite3
from collections.abc import Iterator
from typing import Any

from rulebench.core.errors import StoreError
from rulebench.engine.store.browse import StoreBrowser
from rulebench.engine.store.connection import connect_readonly
from rulebench.engine.store.database import Store

_OTHER = "paired"
"""The name the second store is attached under."""


def _columns(connection: sqlite3.Connection, schema: str) -> list[str]:
    rows = connection.execute(f"PRAGMA {schema}.table_info(results)").fetchall()
    return [str(row[1]) for row in rows]


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


@contextlib.contextmanager
def paired_browser(first: tuple[Store, str], second: tuple[Store, str]) -> Iterator[StoreBrowser]:
    """A browser whose pair reads (`pairs`, `count_pairs`, `paired_counts`) span two stores.

    `first` and `second` are (store, whole run id); only those two runs' results are seen.
    """
    (first_store, first_id), (second_store, second_id) = first, second
    try:
        connection = connect_readonly(first_store.path)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot read the results store {first_store.path}: {exc}") from None
    try:
        uri = second_store.path.resolve().as_uri() + "?mode=ro"
        connection.execute(f"ATTACH DATABASE ? AS {_OTHER}", (uri,))
        shared = [c for c in _columns(connection, "main") if c in _columns(connection, _OTHER)]
        listed = ", ".join(shared)
        connection.execute(
            f"CREATE TEMP VIEW results AS "
            f"SELECT rowid AS rowid, {listed} FROM main.results WHERE run_id = {_quoted(first_id)} "
            f"UNION ALL SELECT rowid AS rowid, {listed} FROM {_OTHER}.results "
            f"WHERE run_id = {_quoted(second_id)}"
        )
    except sqlite3.Error as exc:
        connection.close()
        raise StoreError(
            f"cannot pair runs of {first_store.path} and {second_store.path}: {exc}"
        ) from None

    def query(sql: str, params: tuple[object, ...] = ()) -> list[Any]:
        try:
            return connection.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(
                f"cannot read the results stores {first_store.path} and {second_store.path}: {exc}"
            ) from None

    try:
        yield StoreBrowser(query, frozenset(shared))
    finally:
        connection.close()
