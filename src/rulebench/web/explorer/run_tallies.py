"""A run's sums kept in memory, brought up to date by reading only what changed in the run.

The runs list (each run's tokens and cost, and the state its kept headline belongs to), a
run's page and its live progress sum the run's results. Summed again on every request, that
was a pass over every result each time, while a team polls a live run several times a second
(issue 40; bench/bench_web.py's load case). Here the sums over a run's finished results are
kept, and each request reads the rows past them and, while the run can replace them, its
errors (`engine.run_delta` says why that is enough). Should the run's count of rows disagree
with what is kept (a store replaced or rebuilt under the app), the run is summed again from
its first row.
"""

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import NamedTuple

from rulebench.engine.run_delta import START, Delta, Mark
from rulebench.engine.store.browse import VerdictCounts
from rulebench.engine.store.database import Store
from rulebench.engine.summary import Tally

KEPT = 1024
"""Runs (each with a grouping) whose sums are kept; the least recently used go first."""
_TALLIED = len(Tally._fields) - 1
"""The first sums of a part are a `Tally`'s numbers; then passed, failed, excluded."""


class RunSums(NamedTuple):
    """A run's sums at one moment, as the store's own aggregates give them."""

    tallies: list[Tally]
    """Per group, as `Store.tally_results` gives them for a run without repeats."""
    verdicts: VerdictCounts
    """As `StoreBrowser.verdict_counts` counts them."""
    counts: dict[str, int]
    """Results by status, as `Store.count_results` counts them."""
    has_repeats: bool
    """Some item has repeats: its tallies must average them per sample (`tally_results`)."""


@dataclass
class _Kept:
    """One run's sums as far as they were read; changed only under `lock`."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    mark: Mark = START
    finished: dict[object, list[float]] = field(default_factory=dict)
    """Group -> sums of the finished rows up to the mark: final, never read again."""
    finished_rows: int = 0
    finished_repeats: bool = False
    failed: dict[object, list[float]] = field(default_factory=dict)
    """Group -> sums of the errors up to the mark, as last read."""
    failed_repeats: bool = False
    last: "_Read | None" = None
    """What the last read left (set only under `lock`, read without it)."""


class _Read(NamedTuple):
    """The sums one read left, with its mark and when it began (`time.monotonic`)."""

    mark: Mark
    sums: RunSums
    started: float


_kept: OrderedDict[tuple[str, str, str | None], _Kept] = OrderedDict()
_lock = threading.Lock()


def run_sums(db: Store, run_id: str, group_by: str | None = None) -> RunSums:
    """The run's sums now, grouped by the metadata field `group_by` (None: one group, "all").

    "Now" is a read of the store begun after this call: its own, or another request's that
    began while this one waited, so a team polling a live run shares one read at a time. A
    finished run that kept its identity and count of rows since its sums were read is answered
    from them after one look at its index, without waiting for other requests.
    """
    asked = time.monotonic()
    kept = _entry((str(db.path.resolve()), run_id, group_by))
    reader = db.run_delta()
    last = kept.last  # one attribute: what one read left, whole
    if last is not None and last.mark.identity.status not in (None, "running"):
        identity, rows = reader.check(run_id)
        if identity == last.mark.identity and rows == last.sums.verdicts.results:
            return last.sums
    with kept.lock:
        if kept.last is not None and kept.last.started >= asked:
            return kept.last.sums  # read while this request waited for the lock
        started = time.monotonic()
        if not _apply(kept, reader.since(run_id, group_by, kept.mark)):
            _reset(kept)
            _apply(kept, reader.since(run_id, group_by, kept.mark))
        kept.last = _Read(kept.mark, _sums_of(kept), started)
        return kept.last.sums


def run_tallies(
    db: Store, run_id: str, group_by: str | None = None, sums: RunSums | None = None
) -> list[Tally]:
    """What `db.tally_results(run_id, group_by)` returns, from the kept sums where they serve.

    `sums`: the run's `run_sums` for `group_by`, where the caller has them already. A run
    with repeats averages each sample's repeats first, which the kept sums cannot do: its
    tallies are the store's own.
    """
    sums = sums or run_sums(db, run_id, group_by)
    return db.tally_results(run_id, group_by) if sums.has_repeats else sums.tallies


def _entry(key: tuple[str, str, str | None]) -> _Kept:
    with _lock:
        kept = _kept.get(key)
        if kept is None:
            kept = _kept[key] = _Kept()
            if len(_kept) > KEPT:
                _kept.popitem(last=False)
        _kept.move_to_end(key)
        return kept


def _reset(kept: _Kept) -> None:
    kept.mark, kept.finished, kept.finished_rows, kept.finished_repeats = START, {}, 0, False
    kept.failed, kept.failed_repeats, kept.last = {}, False, None


def _apply(kept: _Kept, delta: Delta) -> bool:
    """Add what `delta` read to `kept`; False when the run's rows are not what is kept."""
    errors = list(kept.mark.error_rowids) if delta.frozen else []
    if not delta.frozen:  # the errors were read again: their sums are these
        kept.failed, kept.failed_repeats = {}, False
    last = kept.mark.after_rowid
    for part in delta.parts:
        _add(kept.failed if part.failed else kept.finished, part.group, part.sums)
        if part.failed:
            errors += part.error_rowids
            kept.failed_repeats |= part.has_repeats
        else:
            kept.finished_rows += int(part.sums[0])
            kept.finished_repeats |= part.has_repeats
        last = max(last, part.last_rowid)
    kept.mark = Mark(last, tuple(errors), delta.identity)
    return delta.run_rows == kept.finished_rows + len(errors)


def _add(groups: dict[object, list[float]], group: object, sums: tuple[float, ...]) -> None:
    found = groups.get(group)
    if found is None:
        groups[group] = list(sums)
    else:
        groups[group] = [a + b for a, b in zip(found, sums, strict=True)]


def _plus(first: list[float] | None, second: list[float] | None) -> list[float]:
    if first is None or second is None:
        return list(first or second or ())
    return [a + b for a, b in zip(first, second, strict=True)]


def _sums_of(kept: _Kept) -> RunSums:
    tallies: list[Tally] = []
    totals: list[float] = [0] * (_TALLIED + 3)
    for group in sorted({*kept.finished, *kept.failed}, key=str):
        sums = _plus(kept.finished.get(group), kept.failed.get(group))
        totals = _plus(totals, sums)
        numbers: list[object] = [*sums[:_TALLIED]]
        numbers[5] = int(sums[5])  # passed: a TOTAL, counted as Store.tally_results does
        tallies.append(Tally._make(["-" if group is None else str(group), *numbers]))
    items, errors = int(totals[0]), int(totals[1])
    passed, failed, excluded = (int(value) for value in totals[_TALLIED:])
    return RunSums(
        tallies,
        VerdictCounts(items, passed, failed, excluded, errors),
        {"ok": items - errors, "error": errors},
        kept.finished_repeats or kept.failed_repeats,
    )
