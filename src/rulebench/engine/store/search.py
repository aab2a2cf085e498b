"""Full-text search over stored results: prompts, replies, answers, thinking and item ids.

The index is SQLite FTS5 (schema steps `004_results_search`, `006_reasoning_search`), kept in
step by triggers, so a search reads the index and a page of rows, never a whole run. Queries
use FTS5's syntax: words (all must occur), "a phrase", prefix*, OR, NOT, and column:word for
item_id, prompt, reply, answer or reasoning (every reply's thinking, earlier turns' too).
"""

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from rulebench.core.errors import ConfigError, StoreError
from rulebench.engine.store.connection import is_busy
from rulebench.engine.verdicts import Verdict, verdict_sql

RawQuery = Callable[[str, tuple[object, ...]], list[Any]]
MARK_START, MARK_END = "\x02", "\x03"
"""Around each matched word in a snippet; control characters no stored text keeps as such."""
COUNT_CAP = 10_000
"""Matches counted at most: beyond that a page says "more than", and stays fast."""
SEARCHED = ("item_id", "prompt", "reply", "answer", "reasoning")
_SNIPPET_WORDS = 16
_JOINED = "FROM results_search CROSS JOIN results AS r ON r.rowid = results_search.rowid"
_BAD_QUERY = ("fts5", "no such column", "unknown special query", "unterminated")


class SearchHit(NamedTuple):
    """One result that matches: where it is and the passage around the match."""

    run_id: str
    item_id: str
    snippet: str
    """Text around the best match, matched words between MARK_START and MARK_END."""
    verdict: Verdict
    """passed, failed, excluded or error, read as the run page reads it (`verdict_sql`)."""


class ResultSearch:
    """Searches one store's index (see `Store.searcher`).

    CROSS JOIN keeps the index as the outer loop: left to itself, SQLite walks a run's rows
    by primary key and runs the full-text query once per row (seconds for a few thousand).
    """

    def __init__(self, query: RawQuery, path: str) -> None:
        self._query = query
        self._path = path

    def hits(
        self,
        text: str,
        run_id: str | None,
        offset: int,
        limit: int,
        skipped: Sequence[str] = (),
    ) -> list[SearchHit]:
        """Matching results, newest first; within one run when `run_id` is given.

        `skipped`: runs left out (read from another store, where they are searched).
        """
        where, params = self._where(text, run_id, skipped)
        rows = self._run(
            "SELECT r.run_id, r.item_id, snippet(results_search, -1, ?, ?, '…', ?), "
            f"{verdict_sql('r')} "
            f"{_JOINED} {where} "
            "ORDER BY results_search.rowid DESC LIMIT ? OFFSET ?",
            (MARK_START, MARK_END, _SNIPPET_WORDS, *params, limit, offset),
            text,
        )
        return [SearchHit(*row) for row in rows]

    def count(self, text: str, run_id: str | None, skipped: Sequence[str] = ()) -> int:
        """How many results match, counted up to COUNT_CAP + 1 (more reads as "more than")."""
        where, params = self._where(text, run_id, skipped)
        [(count,)] = self._run(
            f"SELECT COUNT(*) FROM (SELECT 1 {_JOINED} {where} LIMIT ?)",
            (*params, COUNT_CAP + 1),
            text,
        )
        return int(count)

    @staticmethod
    def _where(
        text: str, run_id: str | None, skipped: Sequence[str] = ()
    ) -> tuple[str, tuple[object, ...]]:
        if not text.strip():
            raise ConfigError("search: give some words to look for")
        where = "WHERE results_search MATCH ?"
        params: tuple[object, ...] = (text,)
        if run_id is not None:
            where, params = f"{where} AND r.run_id = ?", (*params, run_id)
        if skipped:
            marks = ", ".join("?" * len(skipped))
            where, params = f"{where} AND r.run_id NOT IN ({marks})", (*params, *skipped)
        return where, params

    def _run(self, sql: str, params: tuple[object, ...], text: str) -> list[Any]:
        try:
            return self._query(sql, params)
        except sqlite3.OperationalError as exc:
            message = str(exc)
            if "no such table: results_search" in message:
                raise StoreError(
                    f"{self._path} has no search index yet (it was opened read-only): open it "
                    "once where the file can be written (any rulebench command, e.g. "
                    "`rulebench runs list --store PATH`) to build it"
                ) from None
            if not is_busy(exc) and any(mark in message for mark in _BAD_QUERY):
                raise ConfigError(
                    f"search: cannot read the query {text!r} ({message}); put text with "
                    'punctuation in double quotes, e.g. "don\'t", or see the search help'
                ) from None
            raise StoreError(f"cannot read the results store {self._path}: {exc}") from None
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read the results store {self._path}: {exc}") from None


def split_marks(snippet: str) -> list[tuple[str, bool]]:
    """A snippet as (text, is_match) pieces, for a page to mark matches without raw HTML."""
    pieces: list[tuple[str, bool]] = []
    for index, part in enumerate(snippet.split(MARK_START)):
        if index == 0:
            pieces.append((part, False))
            continue
        matched, _, rest = part.partition(MARK_END)
        pieces += [(matched, True), (rest, False)]
    return [(text, is_match) for text, is_match in pieces if text]
