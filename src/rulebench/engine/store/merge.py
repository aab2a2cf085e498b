"""Join results stores into one (`rulebench runs merge`): runs, results, cache entries.

Each source is copied in one transaction with SQLite's ATTACH and INSERT ... SELECT, so rows
never pass through Python, a killed merge leaves the target as it was before that source, and
readers of the target (WAL) see either all of a source or none of it. Copying is idempotent:
rows the target holds already are skipped, and a finished row that differs is a conflict,
refused. An error row is not final (a resume retries it): a finished row of the same item
replaces it, as the store's writer does, so re-merging a shard resumed since is progress.
Sources are attached read-only, so a merge never waits on (or writes) a source's writer.

The shards of one sharded run (`core.shards`) become one run in the target, named for the
whole run's spec and shard count, so that merging them in any order and any number of times
makes the same run.
"""

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, JsonValue

from rulebench.core.errors import StoreError
from rulebench.engine.store.connection import connect_writable, retry_while_busy
from rulebench.engine.store.database import WRITE_PATIENCE_S
from rulebench.engine.store.merge_sources import attach_source, check_source, check_target
from rulebench.engine.store.records import READ_DEFAULTS, RunRecord, row_to_run
from rulebench.engine.store.shard_specs import keyed_spec, maybe_mixed_specs, mixed_specs
from rulebench.engine.store.shard_status import merged_status

CONTENT_COLUMNS = (
    "status", "messages", "reply", "answer", "score", "passed", "reason", "details", "error",
    "metadata", "reasoning", "reasoning_unfinished",
)  # fmt: skip
"""What makes two results of one item the same result (timings and token counts aside).

The thinking is content: two runs of one item that thought differently are two results, even
when the answers agree; its token counts are not, like the other token counts."""
SUPERSEDED = "t.status = 'error' AND (s.status = 'ok' OR IFNULL(s.finished_at, '') > t.finished_at)"
"""A target row the source's row of the same item replaces: an error retried since."""


def sharded(table: str) -> str:
    """SQL true for a run of `table` that is a shard, or was joined from shards by a merge."""
    return (
        f"(json_extract({table}.config, '$.shard') IS NOT NULL "
        f"OR json_extract({table}.notes, '$.shards') IS NOT NULL)"
    )


class MergeReport(BaseModel):
    """What one merge added to the target."""

    model_config = ConfigDict(frozen=True)

    runs_added: int
    results_added: int
    results_replaced: int = 0
    """Error results replaced by a finished (or later) result of the same item."""
    cache_added: int
    sharded_runs: list[str]
    """Ids of the runs in the target that shards were joined into."""
    warnings: list[str] = []
    """Partial sharded runs that may be one run's shards started with different options."""


def merge_stores(sources: Sequence[Path], target: Path) -> MergeReport:
    """Copy every source store into `target` (created if missing), one transaction each.

    Raises:
        StoreError: a source that is missing, damaged or not a store, or a conflict (one line
            naming the run and item).
    """
    for source in sources:
        check_source(source, target)  # a newer, foreign, damaged or locked store: refused first
    check_target(target)  # creates or upgrades the target's schema
    connection = connect_writable(target)
    totals = [0, 0, 0, 0]
    sharded: set[str] = set()
    try:
        for source in sources:
            counts, ids = _merge_one(connection, source, target)
            totals = [a + b for a, b in zip(totals, counts, strict=True)]
            sharded |= ids
        warnings = maybe_mixed_specs(_joined_runs(connection))
    finally:
        connection.close()
    return MergeReport(
        runs_added=totals[0],
        results_added=totals[1],
        cache_added=totals[2],
        results_replaced=totals[3],
        sharded_runs=sorted(sharded),
        warnings=warnings,
    )


def _merge_one(
    connection: sqlite3.Connection, source: Path, target: Path
) -> tuple[list[int], set[str]]:
    """Copy one source in one IMMEDIATE transaction; a conflict rolls it all back."""
    attach_source(connection, source)
    try:

        def copy() -> tuple[list[int], set[str]]:
            connection.execute("BEGIN IMMEDIATE")
            try:
                before = _totals(connection)
                replaced = [0]
                ids = _copy_source(connection, source, target, replaced)
                _refuse_mixed_specs(connection, source)
                after = _totals(connection)
                connection.execute("COMMIT")
            finally:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
            return [*(b - a for a, b in zip(before, after, strict=True)), replaced[0]], ids

        try:
            return retry_while_busy(copy, WRITE_PATIENCE_S, str(target))
        except sqlite3.Error as exc:
            raise StoreError(f"cannot merge {source} into {target}: {exc}") from None
    finally:
        connection.execute("DETACH DATABASE src")


def _totals(connection: sqlite3.Connection) -> tuple[int, int, int]:
    row = connection.execute(
        "SELECT (SELECT COUNT(*) FROM runs), (SELECT COUNT(*) FROM results), "
        "(SELECT COUNT(*) FROM cache)"
    ).fetchone()
    return int(row[0]), int(row[1]), int(row[2])


def _copy_source(
    connection: sqlite3.Connection, source: Path, target: Path, replaced: list[int]
) -> set[str]:
    columns = _shared_columns(connection)
    _refuse_run_conflicts(connection, source, target)
    plain_pairs = f"SELECT id AS source, id AS target FROM src.runs WHERE NOT {sharded('runs')}"
    _refuse_result_conflicts(connection, source, target, plain_pairs)
    replaced[0] += _drop_superseded(connection, plain_pairs)
    names = ", ".join(columns)
    plain = f"SELECT id FROM src.runs WHERE NOT {sharded('runs')}"
    connection.execute(f"INSERT OR IGNORE INTO runs SELECT * FROM src.runs WHERE id IN ({plain})")
    # A run copied before and finished since (resumed in its own store) takes its later end;
    # ends are to the second, so a run resumed within the second counts if it completed.
    connection.execute(
        "UPDATE runs SET status = s.status, ended_at = s.ended_at, notes = s.notes "
        f"FROM src.runs AS s WHERE s.id = runs.id AND NOT {sharded('s')} "
        "AND (s.ended_at > IFNULL(runs.ended_at, '') OR (s.ended_at = runs.ended_at "
        "AND s.status = 'completed' AND runs.status != 'completed'))"
    )
    connection.execute(
        f"INSERT OR IGNORE INTO results ({names}) SELECT {names} FROM src.results "
        f"WHERE run_id IN ({plain})"
    )
    connection.execute("INSERT OR IGNORE INTO cache SELECT * FROM src.cache")
    return _join_shards(connection, source, target, columns, replaced)


def _shared_columns(connection: sqlite3.Connection) -> list[str]:
    """The results columns both stores have (a source opened read-only keeps its schema)."""
    mine = [row[1] for row in connection.execute("PRAGMA main.table_info(results)")]
    theirs = {row[1] for row in connection.execute("PRAGMA src.table_info(results)")}
    return [name for name in mine if name in theirs]


def _refuse_run_conflicts(connection: sqlite3.Connection, source: Path, target: Path) -> None:
    row = connection.execute(
        f"SELECT s.id FROM src.runs AS s JOIN runs AS t ON t.id = s.id WHERE NOT {sharded('s')} "
        "AND (s.task != t.task OR s.model != t.model OR s.config != t.config) LIMIT 1"
    ).fetchone()
    if row:
        raise StoreError(
            f"cannot merge {source}: run {row[0]} is in {target} with another task, model or "
            "configuration (the same run id with different content)"
        )


def _refuse_result_conflicts(
    connection: sqlite3.Connection, source: Path, target: Path, pairs: str, *args: object
) -> None:
    """Refuse a finished result of `pairs` (source run id, target run id) unlike the target's.

    Only two finished results can conflict: an error is replaced by what came later.
    """
    present = {row[1] for row in connection.execute("PRAGMA src.table_info(results)")}
    differs = " OR ".join(
        f"{f's.{c}' if c in present else READ_DEFAULTS[c]} IS NOT t.{c}" for c in CONTENT_COLUMNS
    )
    row = connection.execute(
        f"SELECT p.target, s.item_id FROM ({pairs}) AS p "
        "JOIN src.results AS s ON s.run_id = p.source "
        "JOIN results AS t ON t.run_id = p.target AND t.item_id = s.item_id "
        f"WHERE s.status = 'ok' AND t.status = 'ok' AND ({differs}) LIMIT 1",
        args,
    ).fetchone()
    if row:
        raise StoreError(
            f"cannot merge {source}: run {row[0]}, item {row[1]}: {target} holds a different "
            "result for it (the same run id with different content)"
        )


def _drop_superseded(connection: sqlite3.Connection, pairs: str, *args: object) -> int:
    """Delete the target's error rows that a source row of `pairs` supersedes; count them.

    Deleted, not updated, so that the INSERT after it brings the whole row (and the search
    index follows through the triggers).
    """
    cursor = connection.execute(
        "DELETE FROM results WHERE rowid IN (SELECT t.rowid FROM ("
        f"{pairs}) AS p JOIN src.results AS s ON s.run_id = p.source "
        "JOIN results AS t ON t.run_id = p.target AND t.item_id = s.item_id "
        f"WHERE {SUPERSEDED})",
        args,
    )
    return max(cursor.rowcount, 0)


def _joined_runs(connection: sqlite3.Connection) -> list[RunRecord]:
    rows = connection.execute(
        "SELECT * FROM runs WHERE json_extract(notes, '$.shards') IS NOT NULL"
    ).fetchall()
    return [row_to_run(row) for row in rows]


def _refuse_mixed_specs(connection: sqlite3.Connection, source: Path) -> None:
    """Refuse the source when, merged, it makes shards of differing specs fit one whole run."""
    if problem := mixed_specs(_joined_runs(connection)):
        raise StoreError(f"cannot merge {source}: {problem}")


def whole_spec(config: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """The spec of the whole run a shard's config belongs to: as if run unsharded."""
    return config | {"shard": None}


def sharded_run_id(config: dict[str, JsonValue]) -> str:
    """The id of the run a shard joins: the same for every shard of one spec and count."""
    shard = config.get("shard")
    count = shard.get("count") if isinstance(shard, dict) else None
    digest = hashlib.sha256(
        json.dumps([keyed_spec(config), count], sort_keys=True).encode()
    ).hexdigest()
    return f"sharded-{digest[:12]}"


def _join_shards(
    connection: sqlite3.Connection,
    source: Path,
    target: Path,
    columns: list[str],
    replaced: list[int],
) -> set[str]:
    """Copy each shard run's results into the run of its whole; return those runs' ids.

    A run an earlier merge joined (a merge of merges) brings its shards along, so stores can
    be merged in a tree, in any order.
    """
    rows = connection.execute(
        f"SELECT * FROM src.runs WHERE {sharded('runs')} ORDER BY id"
    ).fetchall()
    names = ", ".join(name for name in columns if name != "run_id")
    joined: set[str] = set()
    for run in map(row_to_run, rows):
        run_id, shards = _shards_brought(run, source)
        pair = "SELECT ? AS source, ? AS target"
        _refuse_result_conflicts(connection, source, target, pair, run.id, run_id)
        replaced[0] += _drop_superseded(connection, pair, run.id, run_id)
        whole = json.dumps(whole_spec(run.config))
        connection.execute(
            "INSERT OR IGNORE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, 'partial', NULL, '{}')",
            (run_id, run.task, run.model, whole, run.version, run.started_at, run.ended_at),
        )
        connection.execute(
            f"INSERT OR IGNORE INTO results (run_id, {names}) SELECT ?, {names} "
            "FROM src.results WHERE run_id = ?",
            (run_id, run.id),
        )
        for shard in shards:
            _record_shard(connection, run_id, shard, run.notes.get("model_identity"), run.ended_at)
        joined.add(run_id)
    return joined


def _shards_brought(run: RunRecord, source: Path) -> tuple[str, list[dict[str, JsonValue]]]:
    """The joined run a source's run belongs to, and the shard entries it brings."""
    earlier = run.notes.get("shards")
    if isinstance(earlier, dict):
        return run.id, [entry for entry in earlier.values() if isinstance(entry, dict)]
    shard: dict[str, JsonValue] = {
        "run": run.id,
        "status": run.status,
        "store": str(source),
        "started_at": run.started_at,
    }
    # The spec names the shard from the start; the notes add the counts once it has ended.
    # A shard killed mid-run has no notes yet, and must still be known by its index.
    for place in (run.config.get("shard"), run.notes.get("shard")):
        if isinstance(place, dict):
            shard |= place
    return sharded_run_id(run.config), [shard]


def _record_shard(
    connection: sqlite3.Connection,
    run_id: str,
    shard: dict[str, JsonValue],
    model_identity: JsonValue,
    ended: str | None,
) -> None:
    """Note one shard in the joined run and recount the joined run's status from the target."""
    started, old_notes, old_ended = connection.execute(
        "SELECT started_at, notes, ended_at FROM runs WHERE id = ?", (run_id,)
    ).fetchone()
    [(ok,)] = connection.execute(
        "SELECT COUNT(*) FROM results WHERE run_id = ? AND status = 'ok'", (run_id,)
    ).fetchall()
    notes = merged_status(json.loads(old_notes), shard, int(ok))
    if model_identity is not None:
        notes.setdefault("model_identity", model_identity)
    status = str(notes.pop("status"))
    first = min(started, str(shard.get("started_at") or started))
    last = max(filter(None, (old_ended, ended)), default=None)
    connection.execute(
        "UPDATE runs SET status = ?, started_at = ?, ended_at = ?, notes = ? WHERE id = ?",
        (status, first, last, json.dumps(notes), run_id),
    )
