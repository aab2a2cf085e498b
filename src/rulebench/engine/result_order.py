"""The orders a run's results can be listed in, as SQL, and an item's neighbours in one.

Sorting is SQL over the run's rows (ORDER BY ... LIMIT): a page of a sorted 100,000-result
run keeps a page of rowids in SQLite's sorter, never the run in Python. Every order but the
finish order ends with the item id, unique in a run, so pages never share or skip a row;
results without a value (no score, no group) come last in both directions, as on the runs list.
"""

from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from rulebench.engine.browse import Query, metadata_path, verdict_sql

SortKey = Literal["finished", "verdict", "score", "tokens", "latency", "group"]
SORT_KEYS: tuple[SortKey, ...] = ("finished", "verdict", "score", "tokens", "latency", "group")

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

    def sql(self) -> str:
        """The ORDER BY terms over the results table (no parameters: the field is checked)."""
        direction = "DESC" if self.is_descending else "ASC"
        if self.key == "finished":
            return f"rowid {direction}"
        if self.key == "verdict":
            return f"{_VERDICT_RANK} {direction}, item_id"
        if self.key == "tokens":
            return f"prompt_tokens + completion_tokens {direction}, item_id"
        if self.key == "latency":
            return f"latency_s {direction}, item_id"
        value = "score" if self.key == "score" else self._group_value()
        return f"{value} IS NULL, {value} {direction}, item_id"

    def _group_value(self) -> str:
        if self.group_field is None:
            return "NULL"
        # metadata_path accepts plain names only, so the path is safe inside the SQL text.
        # The raw JSON value, not its text: numeric groups (rule counts) sort as numbers.
        return f"json_extract(metadata, '{metadata_path(self.group_field)}')"


class Neighbours(NamedTuple):
    """Where an item stands in a filtered, sorted list of a run's results."""

    position: int
    """1-based."""
    total: int
    previous: str | None
    """The item id before it (None: it is the first)."""
    next: str | None


def item_neighbours(
    query: Query, run_id: str, conditions: tuple[str, list[Any]], order: ResultOrder, item_id: str
) -> Neighbours | None:
    """The item's position and the ids either side of it, in one query; None: not in the list.

    `conditions` is the filter's SQL (" AND ..." terms) and parameters. The window numbers
    the matching rows of the run (a sort of their keys inside SQLite) and only the item's
    row and the two beside it come back.
    """
    sql, params = conditions
    rows = query(
        "WITH ordered AS ("
        f"SELECT item_id, ROW_NUMBER() OVER (ORDER BY {order.sql()}) AS n, "
        f"COUNT(*) OVER () AS total FROM results WHERE run_id = ? {sql}), "
        "here AS (SELECT n FROM ordered WHERE item_id = ?) "
        "SELECT o.item_id, o.n, o.total FROM ordered AS o JOIN here "
        "ON o.n BETWEEN here.n - 1 AND here.n + 1 ORDER BY o.n",
        (run_id, *params, item_id),
    )
    found = {str(row[0]): (int(row[1]), int(row[2])) for row in rows}
    if item_id not in found:
        return None
    position, total = found[item_id]
    by_position = {n: found_id for found_id, (n, _) in found.items()}
    return Neighbours(position, total, by_position.get(position - 1), by_position.get(position + 1))
