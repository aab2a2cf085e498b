"""Watching another process's work from outside: its store (never created or locked here) and
the mock server's request log."""

import json
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


def tokens_requested(log: Path) -> list[str]:
    """The loadtest token of every request in a mock server's JSONL log, in order."""
    lines = log.read_text().splitlines() if log.exists() else []
    return [json.loads(line)["messages"][-1]["content"].rsplit(" ", 1)[-1] for line in lines]
