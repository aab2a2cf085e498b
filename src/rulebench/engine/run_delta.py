"""What changed in a run's results since a row: the sums that keep a run's aggregates current.

A finished result is final: the writer replaces only an error, in place (a resume's retry),
and never deletes a result, and every writer claims the run (`Store.reopen_run`, which stores
it as running) before it writes. So a run's sums over its finished rows up to some rowid never
change; what needs reading again is the rows past that rowid, and the run's errors while it is
stored as running or since its status, end or process changed (`web.explorer.run_tallies` keeps the
rest). One statement reads it all, so every figure comes from one snapshot of the store; it
also counts the run's rows, which lets the caller notice anything these rules do not foresee.
The explorer's other reads of a run's aggregates go through the same reader: the charts' pass
sums (`pass_sums`) and the live page's recent pace (`recent`).
"""

from collections.abc import Sequence
from typing import Any, NamedTuple

from rulebench.engine.summary import (
    ITEM_SUMS,
    PassSums,
    group_sql,
    pass_sums_query,
    reasoning_sums,
    to_pass_sums,
)
from rulebench.engine.verdicts import Query, verdict_sql

SUMS = 23
"""Sums per part: the 20 of `summary.Tally` after its group, then passed, failed, excluded."""

_DELTA = (
    "SELECT r.status, r.ended_at, r.pid, "
    "r.status != 'running' AND r.status IS ?5 AND r.ended_at IS ?6 AND r.pid IS ?7, "
    "(SELECT COUNT(*) FROM results WHERE run_id = ?1), d.* FROM runs AS r LEFT JOIN ("
    "SELECT {group} AS g, status = 'error' AS failed, MAX(rid), "
    "group_concat(CASE WHEN status = 'error' THEN rid END), "
    "MAX(json_extract(metadata, '$.repeat') > 0), "
    f"{ITEM_SUMS}, COUNT(score), TOTAL(score), COUNT(passed), TOTAL(passed), "
    "{reasoning}, TOTAL(v = 'passed'), TOTAL(v = 'failed'), TOTAL(v = 'excluded') "
    f"FROM (SELECT rowid AS rid, *, {verdict_sql()} AS v FROM results WHERE rowid IN ("
    # The inner read walks the run's index entries only (`+rowid`: never the table from the
    # watermark on, which holds later runs' rows); the table is read for the rows it names.
    "SELECT rowid FROM results WHERE run_id = ?1 AND +rowid > ?3 UNION ALL "
    "SELECT value FROM json_each(?4) WHERE NOT ("
    "SELECT status != 'running' AND status IS ?5 AND ended_at IS ?6 AND pid IS ?7 "
    "FROM runs WHERE id = ?1)"
    ") AND +run_id = ?1) GROUP BY 1, 2) AS d ON 1 WHERE r.id = ?1"
)
"""?1 run, ?2 group path, ?3 watermark, ?4 error rowids (JSON), ?5-7 status, end, pid read."""


class Identity(NamedTuple):
    """A run's stored status, end and process: while none moves, its stored rows cannot."""

    status: str | None
    ended_at: str | None
    pid: int | None


class Mark(NamedTuple):
    """Where the caller's sums stand: the rows they hold and the run as it was then."""

    after_rowid: int
    """Every row of the run up to this rowid is in the sums."""
    error_rowids: tuple[int, ...]
    """Those of them that were errors, which a resume may replace in place."""
    identity: Identity


START = Mark(0, (), Identity(None, None, None))
"""Nothing read yet."""


class Part(NamedTuple):
    """The sums of the rows read of one group, finished ones or errors."""

    group: object
    """The group's value as SQLite returns it (a text, number or None), kept apart by it."""
    failed: bool
    last_rowid: int
    error_rowids: tuple[int, ...]
    has_repeats: bool
    sums: tuple[float, ...]
    """SUMS numbers, in `SUMS`'s order."""


class Delta(NamedTuple):
    """What one read found."""

    identity: Identity
    frozen: bool
    """The run was not running and kept the identity given: its errors were not read again."""
    run_rows: int
    """Every result the run holds now (to check the caller's count against)."""
    parts: list[Part]


_RECENT = (
    "SELECT COUNT(*), MIN(finished_at) FROM (SELECT finished_at FROM results NOT INDEXED "
    "WHERE run_id = ?1 ORDER BY rowid DESC LIMIT ?3) WHERE finished_at >= ?2"
)
"""The run's newest rows (NOT INDEXED: read from the table's end, as `StoreBrowser.latest`)."""
RECENT_ROWS = 2000
"""The most rows `RunDelta.recent` reads: a run finishing more in its window gives its rate
from these alone (their span is then under the window)."""

_CHECK = (
    "SELECT status, ended_at, pid, (SELECT COUNT(*) FROM results WHERE run_id = ?1) "
    "FROM runs WHERE id = ?1"
)


class RunDelta:
    """Reads what changed in a run's results since a watermark (see `Store.run_delta`)."""

    def __init__(self, query: Query, has_reasoning: bool = True) -> None:
        """`has_reasoning`: the results table has the reasoning columns (an older store not)."""
        self._query = query
        self._reasoning = ", ".join(reasoning_sums(has_reasoning))

    def check(self, run_id: str) -> tuple[Identity, int]:
        """The run's identity and its count of rows (read from its index alone).

        A finished run that kept both since its sums were read has nothing new to read.
        """
        rows = self._query(_CHECK, (run_id,))
        if not rows:
            return Identity(None, None, None), 0
        status, ended_at, pid, count = rows[0]
        return Identity(status, ended_at, pid), int(count)

    def pass_sums(
        self,
        run_id: str,
        breakdowns: Sequence[Sequence[str]],
        sample_field: str,
        required: Sequence[str],
    ) -> list[PassSums]:
        """A run's verdicts per group of each breakdown of metadata fields, in one statement.

        Each sample's repeats count once (`summary.pass_sums_query`): a big run's charts are
        built on it rather than on every result read in turn.
        """
        query = pass_sums_query(breakdowns, sample_field, required)
        return to_pass_sums(self._query(query, (run_id,)))

    def recent(self, run_id: str, since: str) -> tuple[int, str | None]:
        """How many of the run's newest rows finished at `since` or later, and the earliest.

        `since` is a timestamp as rows store it (`records.utc_now`): the live page's rate.
        """
        [(count, earliest)] = self._query(_RECENT, (run_id, since, RECENT_ROWS))
        return int(count), earliest

    def since(self, run_id: str, group_by: str | None, mark: Mark) -> Delta:
        """The run's rows past the mark, and the mark's errors unless the run is frozen.

        `group_by` is a metadata field (None: one group, "all", as `tally_results` has it).
        """
        group, path = group_sql(group_by)
        errors = _json_ints(mark.error_rowids)
        rows = self._query(
            _DELTA.format(group=group, reasoning=self._reasoning),
            (run_id, path, mark.after_rowid, errors, *mark.identity),
        )
        if not rows:
            return Delta(Identity(None, None, None), False, 0, [])
        first = rows[0]
        parts = [_part(row[5:]) for row in rows if row[6] is not None]
        return Delta(Identity(*first[:3]), bool(first[3]), int(first[4]), parts)


def _json_ints(values: Sequence[int]) -> str:
    return "[" + ",".join(str(int(value)) for value in values) + "]"


def _part(row: Sequence[Any]) -> Part:
    group, failed, last_rowid, error_rowids, has_repeats, *sums = row
    errors = tuple(int(rowid) for rowid in error_rowids.split(",")) if error_rowids else ()
    return Part(group, bool(failed), int(last_rowid), errors, bool(has_repeats), tuple(sums))
