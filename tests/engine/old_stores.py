"""Stores as an earlier rulebench wrote them: the migration steps before one, and one result."""

import json
import sqlite3
from pathlib import Path

from rulebench.core.messages import Message
from rulebench.engine.store.migrations import MIGRATIONS


def store_before(
    step: str, path: Path, item_id: str, reply: str, messages: list[Message] | None = None
) -> None:
    """A store migrated up to (not including) `step`, with run 'r1' and one ok result."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for name, sql in MIGRATIONS:
        if name == step:
            break
        db.executescript(sql)
        db.execute("INSERT INTO _migrations VALUES (?, 'then')", (name,))
    db.execute("INSERT INTO runs VALUES ('r1','t','m','{}','0','x',NULL,'completed',1,'{}')")
    shown = json.dumps([m.model_dump() for m in messages or []])
    db.execute(
        "INSERT INTO results (run_id, item_id, status, messages, reply, answer, details, "
        "prompt_tokens, completion_tokens, latency_s, calls, cache_hits, system_merged, "
        "metadata, finished_at) VALUES ('r1',?,'ok',?,?,'Paris','{}',"
        "1,1,0.1,1,0,0,'{}','x')",
        (item_id, shown, reply),
    )
    db.commit()
    db.close()
