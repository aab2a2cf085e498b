"""Damaging a real store file's pages, at rest or while a run writes to it.

A page every command reads on opening (the `_migrations` table's) is the one that matters:
a run's connections read it once, at their start, so damage to it mid-run goes unseen by
the run while every later command fails on it.
"""

import sqlite3
from pathlib import Path

from rulebench.checks.loadtest import LoadTestTask
from rulebench.core.items import Item, Outcome
from rulebench.engine.task import Session

DAMAGE_AT_ITEM = 5
"""The item (by its index) whose start damages the store (the first items are stored by then)."""
TARGET: list[Path] = []
"""The store `DamagingLoadTest` damages (set by the test, or by a subprocess's preamble)."""


def root_page(path: Path, table: str) -> int:
    """The number of a table's or index's first page, read without writing to the store."""
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        [(page,)] = connection.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)
        ).fetchall()
    finally:
        connection.close()
    return int(page)


def damage_page(path: Path, page: int) -> None:
    """Overwrite the start of a page of the file (its b-tree header) with 0xff bytes."""
    with path.open("r+b") as file:
        file.seek(16)  # the header's page size: 2 bytes, big-endian, 1 meaning 65536
        page_size = int.from_bytes(file.read(2), "big")
        file.seek((page - 1) * (65536 if page_size == 1 else page_size))
        file.write(b"\xff" * 100)


class DamagingLoadTest(LoadTestTask):
    """loadtest that damages its store's `_migrations` page as item DAMAGE_AT_ITEM starts."""

    async def solve(self, item: Item, session: Session) -> Outcome:
        """Damage the store once, then answer as loadtest does."""
        if item.metadata["index"] == DAMAGE_AT_ITEM:
            [path] = TARGET
            damage_page(path, root_page(path, "_migrations"))
        return await super().solve(item, session)
