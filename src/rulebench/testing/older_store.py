"""Stores as an older rulebench left them, for tests and benchmarks of the schema upgrades."""

import sqlite3
from pathlib import Path

from rulebench.engine.store.migrations import REASONING_SEARCH_STEP, SEARCH_STEP

_SEARCH_OBJECTS = (
    "DROP TRIGGER results_search_insert",
    "DROP TRIGGER results_search_delete",
    "DROP TRIGGER results_search_update",
    "DROP TABLE results_search",
    "DROP VIEW results_search_source",
)


def drop_search_index(store: Path) -> None:
    """Leave `store` as a rulebench from before the search step left it: no index, no step."""
    db = sqlite3.connect(store)
    try:
        for statement in _SEARCH_OBJECTS:
            db.execute(statement)
        # The reasoning step builds the index again: it is undone with the step it rebuilds.
        db.executemany(
            "DELETE FROM _migrations WHERE name = ?", [(SEARCH_STEP,), (REASONING_SEARCH_STEP,)]
        )
        db.commit()
    finally:
        db.close()
