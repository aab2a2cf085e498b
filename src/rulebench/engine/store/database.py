"""The results store: one SQLite file (WAL) holding runs, their item results and the cache."""

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import JsonValue

from rulebench.core.errors import StoreError
from rulebench.core.items import ItemResult
from rulebench.core.version import __version__
from rulebench.engine.store.cache import MissExplanation, ResponseCache, explain_miss
from rulebench.engine.store.connection import (
    check_intact,
    open_store,
    read_only_cause,
    retry_while_busy,
)
from rulebench.engine.store.location import (
    ID_DRAWS,
    default_store_path,
    id_prefix_pattern,
    new_run_id,
)
from rulebench.engine.store.records import (
    OUTCOME_COLUMNS,
    RunRecord,
    RunStatus,
    outcome_row_to_result,
    result_select,
    row_to_result,
    row_to_run,
    utc_now,
)
from rulebench.engine.store.run_liveness import effective_status, is_process_alive
from rulebench.engine.store.writer import (
    DISK_FULL,
    StoreWriter,
    is_disk_full,
    small_end_notes,
    write_failure,
)
from rulebench.engine.summary import HAS_REPEATS, Tally, tally_query

if TYPE_CHECKING:
    from rulebench.engine.run_delta import RunDelta
    from rulebench.engine.store.browse import StoreBrowser
    from rulebench.engine.store.search import ResultSearch

WRITE_PATIENCE_S = 300.0
"""How long run bookkeeping (create, claim, finish) waits out another process's lock."""
_FINISH_RUN = "UPDATE runs SET status = ?, ended_at = ?, notes = ? WHERE id = ?"


class Store:
    """Reads and administers the store; results are written through `writer()` while running.

    `readonly=True` (listing, showing, exporting, reports) never writes to the file, so a
    store on read-only media can be read, and a reader never waits behind a running writer.
    """

    def __init__(self, path: Path | str | None = None, *, readonly: bool = False) -> None:
        self.path = Path(path) if path is not None else default_store_path()
        self.readonly = readonly
        try:
            self._db = open_store(self.path, readonly)
        except (OSError, sqlite3.Error) as exc:
            cause = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            cause = (None if readonly else read_only_cause(self.path)) or cause
            raise StoreError(f"cannot open the results store at {self.path}: {cause}") from None
        self._present = frozenset(row[1] for row in self._db.execute("PRAGMA table_info(results)"))
        """The results table's columns: an older store opened read-only lacks the newest."""
        self._result_columns = result_select(self._present)

    def close(self) -> None:
        """Close the reading connection."""
        self._db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def writer(self) -> StoreWriter:
        """Start a background writer for results and cache entries."""
        self._check_writable()
        return StoreWriter(self.path)

    # Runs

    def create_run(self, task: str, model: str, config: dict[str, JsonValue]) -> RunRecord:
        """Record the start of a run and return it.

        Two runs started in the same second draw their ids' random part from 16.7 million
        values; should both draw the same one, the later takes a fresh id.
        """
        for _ in range(ID_DRAWS):
            run = RunRecord(
                id=new_run_id(),
                task=task,
                model=model,
                config=config,
                version=__version__,
                started_at=utc_now(),
                ended_at=None,
                status="running",
                pid=os.getpid(),
                notes={},
            )
            row: tuple[object, ...] = (run.id, run.task, run.model, json.dumps(run.config))
            row += (run.version, run.started_at, None, run.status, run.pid, "{}")
            try:
                self._write("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row, raw=True)
            except sqlite3.IntegrityError as exc:
                if "runs.id" not in str(exc):
                    raise self._write_failure(exc) from None
                continue  # the id is taken: draw again
            except sqlite3.Error as exc:
                raise self._write_failure(exc) from None
            return run
        raise StoreError(f"cannot record a new run in {self.path}: {ID_DRAWS} run ids were taken")

    def reopen_run(self, run_id: str) -> RunRecord:
        """Claim a stored run for this process (for --resume); refuse while another holds it.

        Check and claim happen in one IMMEDIATE transaction, so of two resumes started together
        exactly one proceeds and the other sees the run held by a live process.
        """

        def claim() -> RunRecord:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                run = self.get_run(run_id)
                if (
                    run.status == "running"
                    and run.pid
                    and run.pid != os.getpid()
                    and is_process_alive(run.pid)
                ):
                    raise StoreError(
                        f"run {run.id} is running in process {run.pid}: wait for it to end "
                        "(or stop it) before resuming"
                    )
                self._db.execute(
                    "UPDATE runs SET status = 'running', ended_at = NULL, pid = ? WHERE id = ?",
                    (os.getpid(), run.id),
                )
                self._db.execute("COMMIT")
            finally:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
            return run

        self._check_writable()
        try:
            run = retry_while_busy(claim, WRITE_PATIENCE_S, str(self.path))
        except sqlite3.Error as exc:
            raise self._write_failure(exc) from None
        return self.get_run(run.id)

    def note_total(self, run_id: str, total: int) -> None:
        """Record in the run's notes how many items it has, while it runs (the live ETA).

        `finish_run` writes the final notes over it: a finished run's total is its results.
        """
        self._write(
            "UPDATE runs SET notes = json_set(notes, '$.total', ?) WHERE id = ?", (total, run_id)
        )

    def finish_run(self, run_id: str, status: RunStatus, notes: dict[str, JsonValue]) -> None:
        """Record how a run ended and what a reader of its results must know.

        On a full disk the end is still recorded if the store can take one small write: after
        a checkpoint that gives back the write-ahead log's space, the status alone with its
        reason. Left "running", the run would read "killed" with no reason.

        Raises:
            StoreError: not even that fits (the message says so and how to fix it).
        """
        try:
            self._write(_FINISH_RUN, (status, utc_now(), json.dumps(notes), run_id), raw=True)
        except sqlite3.Error as exc:
            if not is_disk_full(exc):
                raise self._write_failure(exc) from None
            self._finish_on_full_disk(run_id, status, notes)

    def _finish_on_full_disk(
        self, run_id: str, status: RunStatus, notes: dict[str, JsonValue]
    ) -> None:
        small = small_end_notes(status, notes)
        with contextlib.suppress(sqlite3.Error):
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try:
            self._write(_FINISH_RUN, (status, utc_now(), json.dumps(small), run_id), raw=True)
        except sqlite3.Error:
            raise StoreError(
                f"{DISK_FULL}: the store {self.path} could not record how run {run_id} ended "
                "(`rulebench runs show` will call it killed): free space on its disk, then "
                "resume the run"
            ) from None

    def discard_run(self, run_id: str) -> None:
        """Delete a run that never began (refused at its start), so it reads as no run at all.

        A run holding results is kept: they are finished work.
        """
        self._write(
            "DELETE FROM runs WHERE id = ? AND NOT EXISTS (SELECT 1 FROM results WHERE run_id = ?)",
            (run_id, run_id),
        )

    def check_intact(self) -> None:
        """Read every page of the store back; a damaged one is a StoreError (see check_intact)."""
        check_intact(self._db, self.path)

    def result_statuses(self, run_id: str) -> dict[str, str]:
        """Item id -> stored status ("ok" or "error") of every result of a run."""
        return dict(self._query("SELECT item_id, status FROM results WHERE run_id = ?", (run_id,)))

    def get_run(self, run_id: str) -> RunRecord:
        """Find a run by id or by a unique prefix of it."""
        rows = self._query(
            "SELECT * FROM runs WHERE id = ? OR id LIKE ? ESCAPE '\\' ORDER BY id LIMIT 2",
            (run_id, id_prefix_pattern(run_id)),
        )
        exact = [row for row in rows if row[0] == run_id]
        if exact or len(rows) == 1:
            return row_to_run((exact or rows)[0])
        if not rows:
            raise StoreError(f"no run '{run_id}' in {self.path} (see `rulebench runs list`)")
        raise StoreError(f"'{run_id}' matches several runs in {self.path}: give more of the id")

    def list_runs(self, limit: int = 50) -> list[RunRecord]:
        """The most recent runs first."""
        rows = self._query(
            "SELECT * FROM runs ORDER BY started_at DESC, rowid DESC LIMIT ?", (limit,)
        )
        return [row_to_run(row) for row in rows]

    def effective_status(self, run: RunRecord) -> str:
        """The stored status, except that a "running" run whose process is gone reads "killed"."""
        return effective_status(run)

    # Results

    def finished_item_ids(self, run_id: str) -> set[str]:
        """Ids of the items of a run that finished without error (a resume skips these)."""
        rows = self._query(
            "SELECT item_id FROM results WHERE run_id = ? AND status = 'ok'", (run_id,)
        )
        return {row[0] for row in rows}

    def count_results(self, run_id: str) -> dict[str, int]:
        """Number of stored results of a run by status ("ok", "error")."""
        rows = self._query(
            "SELECT status, COUNT(*) FROM results WHERE run_id = ? GROUP BY status", (run_id,)
        )
        return {"ok": 0, "error": 0} | {status: count for status, count in rows}

    def count_system_merged(self, run_id: str) -> int:
        """Results of a run whose system message the backend had to merge into a user turn."""
        [(count,)] = self._query(
            "SELECT COUNT(*) FROM results WHERE run_id = ? AND system_merged = 1", (run_id,)
        )
        return int(count)

    def tally_results(self, run_id: str, group_by: str | None = None) -> list[Tally]:
        """Sums over a run's results per value of the metadata field `group_by` (one group if None).

        Done in SQL, in one pass over the results unless the run has repeats
        (`summary.tally_query`): the explorer's pages of a large run are built on it.
        """
        [(has_repeats,)] = self._query(HAS_REPEATS, (run_id,))
        has_reasoning = "reasoning_unfinished" in self._present
        query, parameters = tally_query(group_by, bool(has_repeats), has_reasoning)
        rows = self._query(query, (run_id, *parameters))
        return [
            Tally._make(["-" if row[0] is None else str(row[0]), *row[1:6], int(row[6]), *row[7:]])
            for row in rows
        ]

    def common_errors(self, run_id: str, limit: int = 3) -> list[tuple[str, int]]:
        """A run's most frequent error messages with their counts."""
        rows = self._query(
            "SELECT error, COUNT(*) FROM results WHERE run_id = ? AND status = 'error' "
            "GROUP BY error ORDER BY COUNT(*) DESC LIMIT ?",
            (run_id, limit),
        )
        return [(error, count) for error, count in rows]

    def iter_results(self, run_id: str) -> Iterator[ItemResult]:
        """Stream a run's results in the order they finished, without loading them all at once."""
        return self._stream(run_id, self._result_columns, row_to_result)

    def iter_outcomes(self, run_id: str) -> Iterator[ItemResult]:
        """A run's results with only their outcomes, errors and metadata, in finishing order.

        For scores computed from verdicts and metadata alone (a scenarios run's pass rates,
        its charts): several times faster than whole results on a large run, as transcripts,
        replies and usage are never read (`records.outcome_row_to_result`).
        """
        return self._stream(run_id, OUTCOME_COLUMNS, outcome_row_to_result)

    def _stream(
        self, run_id: str, columns: Sequence[str], convert: Callable[[Any], ItemResult]
    ) -> Iterator[ItemResult]:
        with self._reading():
            cursor = self._db.execute(
                f"SELECT {', '.join(columns)} FROM results WHERE run_id = ? ORDER BY rowid",
                (run_id,),
            )
            for row in cursor:
                yield convert(row)

    def browser(self) -> "StoreBrowser":
        """Paged, filtered reads for the explorer (`rulebench serve`): a page, never a run."""
        from rulebench.engine.store.browse import StoreBrowser  # only the explorer pages it

        return StoreBrowser(self._query, self._present)

    def run_delta(self) -> "RunDelta":
        """What changed in a run's results since a row: the explorer keeps a run's sums."""
        from rulebench.engine.run_delta import RunDelta  # only the explorer reads it

        return RunDelta(self._query, "reasoning_unfinished" in self._present)

    def searcher(self) -> "ResultSearch":
        """Full-text search over the results (prompts, replies, answers, item ids)."""
        from rulebench.engine.store.search import ResultSearch  # only the explorer searches

        def query(sql: str, params: tuple[object, ...]) -> list[Any]:
            return self._db.execute(sql, params).fetchall()

        return ResultSearch(query, str(self.path))

    # Cache

    def response_cache(self, writer: StoreWriter, run_id: str, model: str) -> ResponseCache:
        """The cache as a run of `model` (an identity) sees it: reads here, writes via `writer`."""
        with self._reading():
            return ResponseCache(self._db, writer, run_id, model)

    def explain_cache_miss(self, run_id: str, item_id: str | None = None) -> MissExplanation | None:
        """Why a run's request (the first, or the given item's) missed the cache."""
        with self._reading():
            return explain_miss(self._db, self.get_run(run_id).id, item_id)

    def cache_stats(self) -> list[tuple[str, int]]:
        """Number of cached responses per model identity."""
        rows = self._query("SELECT model, COUNT(*) FROM cache GROUP BY model ORDER BY model")
        return [(model, count) for model, count in rows]

    def clear_cache(self, model: str | None = None) -> int:
        """Delete cached responses (of one model identity, or all); return how many."""
        self._check_writable()
        where, params = ("WHERE model = ?", (model,)) if model else ("", ())
        with self._db:
            return self._db.execute(f"DELETE FROM cache {where}", params).rowcount

    def _write(self, sql: str, params: tuple[object, ...], *, raw: bool = False) -> None:
        """Write one statement, waiting out locks; `raw`: let sqlite3's error through."""
        self._check_writable()

        def write() -> None:
            with self._db:
                self._db.execute(sql, params)

        try:
            retry_while_busy(write, WRITE_PATIENCE_S, str(self.path))
        except sqlite3.Error as exc:
            if raw:
                raise
            raise self._write_failure(exc) from None

    def _write_failure(self, exc: sqlite3.Error) -> StoreError:
        """The one-line error for a failed write (`writer.write_failure`'s, worded for here)."""
        return write_failure(self.path, exc, store="results store", then="try again")

    def _query(self, sql: str, params: tuple[object, ...] = ()) -> list[Any]:
        with self._reading():
            return self._db.execute(sql, params).fetchall()

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """Turn a failed read (a damaged file, say) into one clear StoreError."""
        try:
            yield
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read the results store {self.path}: {exc}") from None

    def _check_writable(self) -> None:
        if self.readonly:
            raise StoreError(f"the results store {self.path} was opened read-only")
