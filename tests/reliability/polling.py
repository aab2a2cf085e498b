"""Watching a store that another process is writing, without creating or locking it."""

import sqlite3
from pathlib import Path


def finished(path: Path) -> int:
    """Results committed so far (0 while the store does not exist yet)."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            return int(db.execute("SELECT COUNT(*) FROM results").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return 0
