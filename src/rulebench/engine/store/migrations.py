"""Append-only schema steps for the results store, each applied once and recorded by name.

Never edit a step that has shipped: stores in the wild already hold it. Add a new one instead.
"""

import sqlite3
from pathlib import Path

from rulebench.core.errors import StoreError

SEARCH_STEP = "004_results_search"
REASONING_STEP = "005_reasoning"
REASONING_SEARCH_STEP = "006_reasoning_search"
ATTEMPTS_STEP = "007_attempts"
# A result's prompt as searched: its messages' text, in order (the reply is kept apart).
_PROMPT_TEXT = (
    "(SELECT group_concat(json_extract(m.value, '$.content'), ' ') "
    "FROM json_each({row}.messages) AS m)"
)
_INDEX = (
    "INSERT INTO results_search (rowid, item_id, prompt, reply, answer) VALUES "
    "({row}.rowid, {row}.item_id, " + _PROMPT_TEXT + ", {row}.reply, {row}.answer);"
)
# External content: a row leaves the index given the very values it was indexed with.
_UNINDEX = (
    "INSERT INTO results_search (results_search, rowid, item_id, prompt, reply, answer) "
    "VALUES ('delete', {row}.rowid, {row}.item_id, " + _PROMPT_TEXT + ", {row}.reply, "
    "{row}.answer);"
)
# A result's thinking as searched: its earlier replies' (kept in `messages`), then the last's.
_REASONING_TEXT = (
    "(SELECT group_concat(t.text, ' ') FROM (SELECT json_extract(m.value, '$.reasoning') "
    "AS text FROM json_each({row}.messages) AS m UNION ALL SELECT {row}.reasoning) AS t)"
)
_SEARCHED_WITH_REASONING = (
    "{row}.rowid, {row}.item_id, "
    + _PROMPT_TEXT
    + ", {row}.reply, {row}.answer, "
    + _REASONING_TEXT
)
_INDEX_WITH_REASONING = (
    "INSERT INTO results_search (rowid, item_id, prompt, reply, answer, reasoning) VALUES ("
    + _SEARCHED_WITH_REASONING
    + ");"
)
_UNINDEX_WITH_REASONING = (
    "INSERT INTO results_search (results_search, rowid, item_id, prompt, reply, answer, "
    "reasoning) VALUES ('delete', " + _SEARCHED_WITH_REASONING + ");"
)

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
    (
        # A reply was stored twice per result (in `messages` and `reply`): keep it in `reply`
        # only. Records what had to change in a reply to store it (surrogates, size cap).
        "002_reply_once_and_warnings",
        """
        ALTER TABLE results ADD COLUMN warnings TEXT NOT NULL DEFAULT '[]';
        UPDATE results SET messages = json_remove(messages, '$[#-1]')
            WHERE reply IS NOT NULL
            AND json_extract(messages, '$[#-1].role') = 'assistant'
            AND json_extract(messages, '$[#-1].content') = reply;
        """,
    ),
    (
        # Tokens of cached replies and of log-likelihood scoring, apart from generated ones;
        # the replicas that answered. Results stored before this step read 0 and [].
        "003_token_accounting_and_endpoints",
        """
        ALTER TABLE results ADD COLUMN cached_prompt_tokens INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE results ADD COLUMN cached_completion_tokens INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE results ADD COLUMN scoring_tokens INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE results ADD COLUMN endpoints TEXT NOT NULL DEFAULT '[]';
        """,
    ),
    (
        # Full-text search over prompts, replies, answers and item ids (`engine.store.search`). The
        # index keeps no copy of the text: it reads it back through the view (external
        # content), and the triggers keep it in step with every write, whoever writes. The
        # backfill inserts the rows itself: FTS5's 'rebuild' fails on a view with a subquery.
        # Prefix indexes of 2 and 3 characters: `ana*` reads them instead of every term
        # starting so (bench/bench_search.py).
        SEARCH_STEP,
        f"""
        CREATE VIEW results_search_source AS
            SELECT r.rowid AS result_rowid, r.item_id, {_PROMPT_TEXT.format(row="r")} AS prompt,
                r.reply, r.answer
            FROM results AS r;
        CREATE VIRTUAL TABLE results_search USING fts5 (
            item_id, prompt, reply, answer,
            content = 'results_search_source', content_rowid = 'result_rowid',
            tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
        );
        INSERT INTO results_search (rowid, item_id, prompt, reply, answer)
            SELECT * FROM results_search_source;
        CREATE TRIGGER results_search_insert AFTER INSERT ON results BEGIN
            {_INDEX.format(row="new")}
        END;
        CREATE TRIGGER results_search_delete AFTER DELETE ON results BEGIN
            {_UNINDEX.format(row="old")}
        END;
        CREATE TRIGGER results_search_update
            AFTER UPDATE OF item_id, messages, reply, answer ON results BEGIN
            {_UNINDEX.format(row="old")}
            {_INDEX.format(row="new")}
        END;
        """,
    ),
    (
        # A reasoning model's thinking, apart from its answer (`reply`); whether it never
        # closed (the reply limit cut it); the reasoning tokens among the completion tokens.
        # Results stored before this step read no reasoning, finished, 0 tokens.
        REASONING_STEP,
        """
        ALTER TABLE results ADD COLUMN reasoning TEXT;
        ALTER TABLE results ADD COLUMN reasoning_unfinished INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE results ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE results ADD COLUMN cached_reasoning_tokens INTEGER NOT NULL DEFAULT 0;
        """,
    ),
    (
        # Search covers the thinking too, every reply's: the index of step 004 is built again
        # with a `reasoning` column (FTS5 tables take no new column), as that step built it.
        REASONING_SEARCH_STEP,
        f"""
        DROP TRIGGER IF EXISTS results_search_insert;
        DROP TRIGGER IF EXISTS results_search_delete;
        DROP TRIGGER IF EXISTS results_search_update;
        DROP TABLE IF EXISTS results_search;
        DROP VIEW IF EXISTS results_search_source;
        CREATE VIEW results_search_source AS
            SELECT r.rowid AS result_rowid, r.item_id, {_PROMPT_TEXT.format(row="r")} AS prompt,
                r.reply, r.answer, {_REASONING_TEXT.format(row="r")} AS reasoning
            FROM results AS r;
        CREATE VIRTUAL TABLE results_search USING fts5 (
            item_id, prompt, reply, answer, reasoning,
            content = 'results_search_source', content_rowid = 'result_rowid',
            tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
        );
        INSERT INTO results_search (rowid, item_id, prompt, reply, answer, reasoning)
            SELECT * FROM results_search_source;
        CREATE TRIGGER results_search_insert AFTER INSERT ON results BEGIN
            {_INDEX_WITH_REASONING.format(row="new")}
        END;
        CREATE TRIGGER results_search_delete AFTER DELETE ON results BEGIN
            {_UNINDEX_WITH_REASONING.format(row="old")}
        END;
        CREATE TRIGGER results_search_update
            AFTER UPDATE OF item_id, messages, reply, answer, reasoning ON results BEGIN
            {_UNINDEX_WITH_REASONING.format(row="old")}
            {_INDEX_WITH_REASONING.format(row="new")}
        END;
        """,
    ),
    (
        # The requests an item's calls sent, retries included (a slow server's timeouts once
        # sent one prompt four times under `calls: 1`). Earlier results read 0: not counted.
        ATTEMPTS_STEP,
        """
        ALTER TABLE results ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
        """,
    ),
)
KNOWN = frozenset(name for name, _ in MIGRATIONS)
READ_OPTIONAL = frozenset({SEARCH_STEP, REASONING_STEP, REASONING_SEARCH_STEP, ATTEMPTS_STEP})
"""Steps a read-only open may do without: the store reads as before, only search is missing
(or does not cover reasoning) and results read with no reasoning and no attempts counted
(`records.READ_DEFAULTS`)."""
SEARCH_TABLES = frozenset(
    f"results_search{suffix}" for suffix in ("", "_data", "_idx", "_docsize", "_config")
)
"""The search index and the tables FTS5 keeps for it."""
STORE_TABLES = frozenset({"_migrations", "runs", "results", "cache"}) | SEARCH_TABLES


def applied_steps(connection: sqlite3.Connection, path: Path) -> set[str] | None:
    """The steps a store has applied; None for a new, empty database.

    Refuses, without changing anything, a database that is not a rulebench store or that a
    newer rulebench has written (its schema may hold what this version cannot keep intact).
    """
    tables = {
        row[0]
        for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    }
    if not tables:
        return None
    if "_migrations" in tables:
        # Unknown steps first: a newer rulebench's step may have added a table of its own.
        try:
            applied = {row[0] for row in connection.execute("SELECT name FROM _migrations")}
        except sqlite3.OperationalError:  # another program's table of that name
            applied, tables = set(), tables | {"_migrations (not rulebench's)"}
        if unknown := sorted(applied - KNOWN):
            raise StoreError(
                f"{path} was written by a newer rulebench (schema step {unknown[0]}): upgrade "
                "rulebench to use it"
            )
    if "_migrations" not in tables or not tables <= STORE_TABLES:
        foreign = ", ".join(sorted(tables - STORE_TABLES)[:5] or sorted(tables)[:5])
        raise StoreError(
            f"{path} is not a rulebench store (it holds other tables: {foreign}); left as it is"
        )
    return applied


def pending_steps(applied: set[str] | None) -> list[tuple[str, str]]:
    """The steps not applied yet, in order.

    When both search steps are pending, step 004 is recorded without its work: step 006
    builds the whole index again anyway, and indexing every result twice would double the
    first open of a large store.
    """
    pending = [(name, sql) for name, sql in MIGRATIONS if name not in (applied or set())]
    names = {name for name, _ in pending}
    if {SEARCH_STEP, REASONING_SEARCH_STEP} <= names:
        pending = [(name, "" if name == SEARCH_STEP else sql) for name, sql in pending]
    return pending


def _statements(sql: str) -> list[str]:
    statements, current = [], ""
    for line in sql.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    return [s for s in statements if s]


def migrate(connection: sqlite3.Connection, path: Path) -> list[str]:
    """Apply the steps this database has not seen yet, in one transaction; return their names.

    The transaction starts IMMEDIATE (the write lock first) and reads what is applied inside
    it, so processes opening a new store at once apply each step exactly once, in order.
    """
    if not pending_steps(applied_steps(connection, path)):
        return []  # up to date: no write lock, so readers never queue behind a running writer
    connection.execute("BEGIN IMMEDIATE")
    try:
        connection.execute(
            "CREATE TABLE IF NOT EXISTS _migrations "
            "(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        new = pending_steps(applied_steps(connection, path))
        for name, sql in new:
            for statement in _statements(sql):
                connection.execute(statement)
            connection.execute("INSERT INTO _migrations VALUES (?, datetime('now'))", (name,))
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    return [name for name, _ in new]
