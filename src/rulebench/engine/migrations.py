"""Append-only schema steps for the results store, each applied once and recorded by name.

Never edit a step that has shipped: stores in the wild already hold it. Add a new one instead.
"""

import sqlite3

MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "001_runs_results_cache",
        """
        CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            task TEXT NOT NULL,
            model TEXT NOT NULL,
            config TEXT NOT NULL,
            version TEXT NOT NULL,
            started_at TEXT NOT NULL,
            ended_at TEXT,
            status TEXT NOT NULL,
            pid INTEGER,
            notes TEXT NOT NULL DEFAULT '{}'
        );
        CREATE TABLE results (
            run_id TEXT NOT NULL REFERENCES runs(id),
            item_id TEXT NOT NULL,
            status TEXT NOT NULL,
            messages TEXT NOT NULL,
            reply TEXT,
            answer TEXT,
            score REAL,
            passed INTEGER,
            reason TEXT,
            details TEXT NOT NULL,
            error TEXT,
            prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            latency_s REAL NOT NULL,
            calls INTEGER NOT NULL,
            cache_hits INTEGER NOT NULL,
            system_merged INTEGER NOT NULL,
            metadata TEXT NOT NULL,
            finished_at TEXT NOT NULL,
            PRIMARY KEY (run_id, item_id)
        );
        CREATE TABLE cache (
            key TEXT PRIMARY KEY,
            model TEXT NOT NULL,
            parts TEXT NOT NULL,
            completion TEXT NOT NULL,
            run_id TEXT,
            item_id TEXT,
            created_at TEXT NOT NULL
        );
        CREATE INDEX cache_by_model ON cache (model, created_at);
        CREATE INDEX cache_by_run ON cache (run_id);
        """,
    ),
)


def migrate(connection: sqlite3.Connection) -> list[str]:
    """Apply the steps this database has not seen yet, in order; return their names."""
    # Read first: opening a store that is up to date must not take the write lock, or a
    # `runs list` beside a running evaluation would queue behind its writer.
    exists = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_migrations'"
    ).fetchone()
    if exists is None:
        connection.execute(
            "CREATE TABLE IF NOT EXISTS _migrations "
            "(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
    applied = {row[0] for row in connection.execute("SELECT name FROM _migrations")}
    new = [(name, sql) for name, sql in MIGRATIONS if name not in applied]
    for name, sql in new:
        # executescript commits first; wrap each step so a crash leaves it wholly in or out.
        connection.executescript(
            f"BEGIN;\n{sql}\nINSERT INTO _migrations VALUES ('{name}', datetime('now'));\nCOMMIT;"
        )
    return [name for name, _ in new]
