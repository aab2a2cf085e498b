"""The orders a run's results can be listed in, as SQL, and an item's neighbours in one.

Sorting is SQL over the run's rows (ORDER BY ... LIMIT): a page of a sorted 100,000-result
run keeps a page of rowids in SQLite's sorter, never the run in Python. Every order but the
finish order ends with the item id, unique in a run, so pages never share or skip a row;
results without a value (no score, no group) come last in both directions, as on the runs list.
"""

from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from rulebench.engine.verdicts import Query, metadata_path, verdict_sql

SortKey = Literal["finished", "verdict", "score", "tokens", "latency", "group"]

_VERDICT_RANK = (
    f"CASE {verdict_sql()} WHEN 'passed' THEN 0 WHEN 'failed' THEN 1 "
    "WHEN 'excluded' THEN 2 ELSE 3 END"
)
"""Verdicts in the order of `browse.VERDICTS`: passed, failed, not counted, error."""


class ResultOrder(BaseModel):
    """How a run's results are ordered: a key, its direction, and the group's field."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: SortKey = "finished"
    """"finished": the order the results were stored in."""
    is_descending: bool = False
    group_field: str | None = None
    """The metadata field the "group" key reads (the task's `group_by`); None sorts by id."""

    def terms(self) -> tuple[tuple[str, bool], ...]:
        """The ORDER BY terms over the results table: (expression, is descending) each.

        No parameters: the group's field is checked. A value that may be missing is
        preceded by `value IS NULL` (ascending), so rows without one come last either way.
        """
        direction = self.is_descending
        by_id = ("item_id", False)
        if self.key == "finished":
            return (("rowid", direction),)
        if self.key in ("verdict", "tokens", "latency"):
            value = {
                "verdict": _VERDICT_RANK,
                "tokens": "prompt_tokens + completion_tokens",
                "latency": "latency_s",
            }[self.key]
            return ((value, direction), by_id)
        value = "score" if self.key == "score" else self._group_value()
        return ((f"{value} IS NULL", False), (value, direction), by_id)

    def sql(self, is_reversed: bool = False) -> str:
        """The ORDER BY clause's terms (`is_reversed`: the list from its end)."""
        return ", ".join(
            f"{value} {'DESC' if is_descending != is_reversed else 'ASC'}"
            for value, is_descending in self.terms()
        )

    def _group_value(self) -> str:
        if self.group_field is None:
            return "NULL"
        # metadata_path accepts plain names only, so the path is safe inside the SQL text.
        # The raw JSON value, not its text: numeric groups (rule counts) sort as numbers.
        return f"json_extract(metadata, '{metadata_path(self.group_field)}')"

    def beyond(self, anchor: Sequence[object], is_after: bool) -> tuple[str, list[object]]:
        """A condition: the row comes after (else before) the row whose terms are `anchor`.

        Lexicographic over the terms; `IS` compares missing values as equal, so two rows
        without a score are told apart by their ids.
        """
        sql, params = "0", list[object]()
        for (value, is_descending), anchored in reversed(
            list(zip(self.terms(), anchor, strict=True))
        ):
            beyond = ">" if is_descending != is_after else "<"
            sql = f"(({value}) {beyond} ? OR ({value}) IS ? AND {sql})"
            params = [anchored, anchored, *params]
        return sql, params


class Neighbours(NamedTuple):
    """Where an item stands in a filtered, sorted list of a run's results."""

    position: int
    """1-based."""
    total: int
    previous: str | None
    """The item id before it (None: it is the first)."""
    next: str | None


class ListedResults(NamedTuple):
    """A run's results under a filter, in an order: the list an item page walks."""

    run_id: str
    conditions: tuple[str, list[Any]]
    """The filter's SQL (" AND ..." terms over the results table) and its parameters."""
    order: ResultOrder


def item_neighbours(query: Query, listed: ListedResults, item_id: str) -> Neighbours | None:
    """The item's position and the ids either side of it; None: it is not in the list.

    Keyset reads, from the item's own sort values: one primary-key lookup, one counting
    pass over the run's rows and a first row either side (no sort of the run). Numbering the
    rows with window functions instead is several times slower on a large run
    (`bench/bench_web.py` times the item page).
    """
    sql, params = listed.conditions
    found = query(
        f"SELECT {', '.join(value for value, _ in listed.order.terms())} FROM results "
        f"WHERE run_id = ? AND item_id = ? {sql}",
        (listed.run_id, item_id, *params),
    )
    if not found:
        return None
    anchor = tuple(found[0])
    before, before_params = listed.order.beyond(anchor, is_after=False)
    [(total, earlier)] = query(
        f"SELECT COUNT(*), TOTAL({before}) FROM results WHERE run_id = ? {sql}",
        (*before_params, listed.run_id, *params),
    )
    return Neighbours(
        int(earlier) + 1,
        int(total),
        _first_beyond(query, listed, anchor, is_after=False),
        _first_beyond(query, listed, anchor, is_after=True),
    )


def _first_beyond(
    query: Query, listed: ListedResults, anchor: Sequence[object], is_after: bool
) -> str | None:
    sql, params = listed.conditions
    beyond, beyond_params = listed.order.beyond(anchor, is_after)
    rows = query(
        f"SELECT item_id FROM results WHERE run_id = ? {sql} AND {beyond} "
        f"ORDER BY {listed.order.sql(is_reversed=not is_after)} LIMIT 1",
        (listed.run_id, *params, *beyond_params),
    )
    return str(rows[0][0]) if rows else None
