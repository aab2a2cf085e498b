"""Paged, filtered reads of runs and results, for the explorer: a page, never a whole run.

Every query here ends in LIMIT/OFFSET or an aggregate, so a page of a 100,000-result run
reads a page of rows, however large the run: a page costs about what its rows cost, and a
filter on a metadata field needs no index (json_extract over the run's rows stays fast enough;
docs/performance.md has the figures).
"""

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from rulebench.core.items import ItemResult
from rulebench.engine.store.records import (
    RESULT_COLUMNS,
    RunRecord,
    result_select,
    row_to_result,
    row_to_run,
)
from rulebench.engine.verdicts import Query, Verdict, metadata_path, verdict_sql

if TYPE_CHECKING:
    from rulebench.engine.store.result_order import Neighbours, ResultOrder

PairFilter = Literal["all", "differ", "only-first", "only-second"]
_FIRST_REPEAT = "COALESCE(json_extract({t}.metadata, '$.repeat'), 0) = 0"


def _correct_sql(table: str) -> str:
    """1 right, 0 wrong, NULL not counted (errors, excluded): what McNemar pairs."""
    t = f"{table}."
    return (
        f"CASE WHEN {t}status = 'error' THEN NULL WHEN {t}passed IS NOT NULL THEN {t}passed "
        f"WHEN {t}score IS NOT NULL THEN {t}score >= 1.0 END"
    )


def _like_contains(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class RunFilter(BaseModel):
    """Which runs a list shows; every condition is optional and they all must hold."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str | None = None
    """The benchmark family, exactly (inferential, scenarios, judge...)."""
    model: str | None = None
    """Text the model spec contains."""
    status: str | None = None
    """The stored status (a killed run is stored as running: see `Store.effective_status`)."""


class ResultFilter(BaseModel):
    """Which results of a run a page shows; every condition is optional and all must hold."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    verdict: Verdict | None = None
    metadata: dict[str, str] = Field(default_factory=dict)
    """Metadata field -> value it must have (as text), e.g. {"scenario": "Encryption"}."""
    error: str | None = None
    """Text the error message contains (only errors have one)."""
    item_id: str | None = None
    """Text the item id contains."""


class VerdictCounts(NamedTuple):
    """How many results a run holds, by verdict."""

    results: int
    passed: int
    failed: int
    excluded: int
    error: int


class PairedCounts(NamedTuple):
    """Two runs' verdicts on the items both counted (first repeat only): McNemar's input."""

    pairs: int
    only_first_passed: int
    only_second_passed: int
    unpaired: int
    """Items of the first run (first repeat) the second did not count, or the reverse."""


class Pair(NamedTuple):
    """One item of the first run beside the same item in the second (None: not there)."""

    first: ItemResult
    second: ItemResult | None


def _result_conditions(where: ResultFilter, table: str = "") -> tuple[str, list[object]]:
    t = f"{table}." if table else ""
    sql, params = "", list[object]()
    if where.verdict is not None:
        sql += f" AND {verdict_sql(table)} = ?"
        params.append(where.verdict)
    for field, value in sorted(where.metadata.items()):
        sql += f" AND CAST(json_extract({t}metadata, ?) AS TEXT) = ?"
        params += [metadata_path(field), value]
    if where.error:
        sql += f" AND {t}error LIKE ? ESCAPE '\\'"
        params.append(_like_contains(where.error))
    if where.item_id:
        sql += f" AND {t}item_id LIKE ? ESCAPE '\\'"
        params.append(_like_contains(where.item_id))
    return sql, params


_PAIR_CONDITIONS: dict[PairFilter, str] = {
    "all": "",
    "differ": " AND b.item_id IS NOT NULL AND ({a}) != ({b})",
    "only-first": " AND b.item_id IS NOT NULL AND ({a}) = 'passed' AND ({b}) = 'failed'",
    "only-second": " AND b.item_id IS NOT NULL AND ({a}) = 'failed' AND ({b}) = 'passed'",
}


class StoreBrowser:
    """The explorer's reads of one store, each a page or an aggregate (see `Store.browser`)."""

    def __init__(self, query: Query, present: Collection[str] | None = None) -> None:
        """`present`: the columns of the store's results table, None for all of this version."""
        self._query = query
        self._columns = ", ".join(result_select(present))
        pairs = (*result_select(present, "a."), *result_select(present, "b."))
        self._pair_columns = ", ".join(pairs)

    # Runs

    def runs(self, where: RunFilter, offset: int, limit: int) -> list[RunRecord]:
        """Matching runs, most recent first."""
        sql, params = self._run_conditions(where)
        rows = self._query(
            f"SELECT * FROM runs WHERE 1 {sql} ORDER BY started_at DESC, rowid DESC "
            "LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [row_to_run(row) for row in rows]

    def count_runs(self, where: RunFilter) -> int:
        """How many runs match."""
        sql, params = self._run_conditions(where)
        [(count,)] = self._query(f"SELECT COUNT(*) FROM runs WHERE 1 {sql}", tuple(params))
        return int(count)

    def run_values(self, column: Literal["task", "model", "status"]) -> list[str]:
        """The distinct values of a runs column, sorted (for the list's filters)."""
        rows = self._query(f"SELECT DISTINCT {column} FROM runs ORDER BY 1 LIMIT 500", ())
        return [str(value) for (value,) in rows]

    @staticmethod
    def _run_conditions(where: RunFilter) -> tuple[str, list[object]]:
        sql, params = "", list[object]()
        if where.task:
            sql += " AND task = ?"
            params.append(where.task)
        if where.model:
            sql += " AND model LIKE ? ESCAPE '\\'"
            params.append(_like_contains(where.model))
        if where.status:
            sql += " AND status = ?"
            params.append(where.status)
        return sql, params

    # Results of one run

    def results(
        self,
        run_id: str,
        where: ResultFilter,
        offset: int,
        limit: int,
        order: "ResultOrder | None" = None,
    ) -> list[ItemResult]:
        """Matching results in `order` (default: the order they finished).

        The sort keeps only rowids (the page's whole rows are read after it), so a deep
        page of a large run does not carry every row before it through SQLite's sorter.
        """
        sql, params = _result_conditions(where)
        terms = "rowid" if order is None else order.sql()
        rows = self._query(
            f"SELECT {self._columns} FROM results WHERE rowid IN ("
            f"SELECT rowid FROM results WHERE run_id = ? {sql} ORDER BY {terms} "
            f"LIMIT ? OFFSET ?) ORDER BY {terms}",
            (run_id, *params, limit, offset),
        )
        return [row_to_result(row) for row in rows]

    def neighbours(
        self, run_id: str, where: ResultFilter, order: "ResultOrder", item_id: str
    ) -> "Neighbours | None":
        """The item's position in the filtered, sorted list and the ids either side of it."""
        from rulebench.engine.store.result_order import ListedResults, item_neighbours  # imports us

        listed = ListedResults(run_id, _result_conditions(where), order)
        return item_neighbours(self._query, listed, item_id)

    def count(self, run_id: str, where: ResultFilter) -> int:
        """How many results of the run match."""
        sql, params = _result_conditions(where)
        [(count,)] = self._query(
            f"SELECT COUNT(*) FROM results WHERE run_id = ? {sql}", (run_id, *params)
        )
        return int(count)

    def result(self, run_id: str, item_id: str) -> ItemResult | None:
        """One item's result, or None when the run has none for it."""
        rows = self._query(
            f"SELECT {self._columns} FROM results WHERE run_id = ? AND item_id = ?",
            (run_id, item_id),
        )
        return row_to_result(rows[0]) if rows else None

    def latest(self, run_id: str, limit: int) -> list[ItemResult]:
        """The run's most recently finished results, newest first.

        NOT INDEXED walks the table from its newest row: a live run's rows are the newest,
        so this reads about `limit` rows, where the index would sort all of the run's.
        """
        rows = self._query(
            f"SELECT {self._columns} FROM results NOT INDEXED WHERE run_id = ? "
            "ORDER BY rowid DESC LIMIT ?",
            (run_id, limit),
        )
        return [row_to_result(row) for row in rows]

    def verdict_counts(self, run_id: str) -> VerdictCounts:
        """The run's results counted by verdict, in one pass."""
        verdict = verdict_sql()
        [row] = self._query(
            f"SELECT COUNT(*), TOTAL({verdict} = 'passed'), TOTAL({verdict} = 'failed'), "
            f"TOTAL({verdict} = 'excluded'), TOTAL(status = 'error') "
            "FROM results WHERE run_id = ?",
            (run_id,),
        )
        return VerdictCounts(*(int(value) for value in row))

    def metadata_values(
        self, run_id: str, fields: Sequence[str], limit: int = 200
    ) -> dict[str, list[str]]:
        """Field -> the distinct values the run's results have for it, in one pass.

        Fields no result has are left out; each keeps at most `limit` values.
        """
        if not fields:
            return {}
        columns = ", ".join("CAST(json_extract(metadata, ?) AS TEXT)" for _ in fields)
        rows = self._query(
            f"SELECT DISTINCT {columns} FROM results WHERE run_id = ? LIMIT 5000",
            (*(metadata_path(field) for field in fields), run_id),
        )
        found: dict[str, list[str]] = {}
        for index, field in enumerate(fields):
            values = sorted({row[index] for row in rows if row[index] is not None})
            if values:
                found[field] = values[:limit]
        return found

    # Two runs

    def pairs(
        self, first: str, second: str, show: PairFilter, offset: int, limit: int
    ) -> list[Pair]:
        """The first run's results (in finish order) beside the second's on the same items."""
        condition = self._pair_condition(show)
        rows = self._query(
            f"SELECT {self._pair_columns} FROM results a LEFT JOIN results b "
            f"ON b.run_id = ? AND b.item_id = a.item_id WHERE a.run_id = ? {condition} "
            "ORDER BY a.rowid LIMIT ? OFFSET ?",
            (second, first, limit, offset),
        )
        width = len(RESULT_COLUMNS)
        return [
            Pair(
                row_to_result(row[:width]),
                None if row[width] is None else row_to_result(row[width:]),
            )
            for row in rows
        ]

    def count_pairs(self, first: str, second: str, show: PairFilter) -> int:
        """How many of the first run's results `pairs` would show in all."""
        [(count,)] = self._query(
            "SELECT COUNT(*) FROM results a LEFT JOIN results b "
            "ON b.run_id = ? AND b.item_id = a.item_id "
            f"WHERE a.run_id = ? {self._pair_condition(show)}",
            (second, first),
        )
        return int(count)

    def paired_counts(self, first: str, second: str) -> PairedCounts:
        """Discordant pairs over the items both runs counted, on their first repeat.

        Pairs as the scenarios report does (a case's first repeat, by id; errors and uncounted
        items left out), so McNemar's p from these counts is the report's. The join walks the
        first run and looks each item up in the second by primary key (a join of two
        subqueries instead had no index: minutes for 100,000 items).
        """
        a, b = _correct_sql("a"), _correct_sql("b")
        [(pairs, only_first, only_second)] = self._query(
            "SELECT COUNT(*), TOTAL(ca = 1 AND cb = 0), TOTAL(ca = 0 AND cb = 1) FROM ("
            f"SELECT {a} AS ca, {b} AS cb FROM results a JOIN results b "
            "ON b.run_id = ? AND b.item_id = a.item_id "
            f"WHERE a.run_id = ? AND {_FIRST_REPEAT.format(t='a')} "
            f"AND {_FIRST_REPEAT.format(t='b')}"
            ") WHERE ca IS NOT NULL AND cb IS NOT NULL",
            (second, first),
        )
        counted = sum(self._counted(run_id) for run_id in (first, second))
        return PairedCounts(int(pairs), int(only_first), int(only_second), counted - 2 * pairs)

    def _counted(self, run_id: str) -> int:
        """Items of a run (first repeat) with a verdict that counts."""
        [(count,)] = self._query(
            f"SELECT COUNT(*) FROM results r WHERE r.run_id = ? AND {_FIRST_REPEAT.format(t='r')} "
            f"AND ({_correct_sql('r')}) IS NOT NULL",
            (run_id,),
        )
        return int(count)

    @staticmethod
    def _pair_condition(show: PairFilter) -> str:
        return _PAIR_CONDITIONS[show].format(a=verdict_sql("a"), b=verdict_sql("b"))
