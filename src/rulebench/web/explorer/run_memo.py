"""Aggregates over a run's results, kept in memory until the run's results change.

Every page of a run shows its summary, verdict counts, common errors and filter values, the
runs list its headline score, and every page comparing two runs their pair counts and paired
test; on a 100,000-result run each is a pass over every result (bench/bench_web.py). A run's
state says when they may have changed: its counts of finished and failed results (a result is
added, an error retried), its status and its end. What is computed for one state is served
again while the run is in that state.
"""

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar, cast

from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord
from rulebench.web.explorer.run_tallies import RunSums, run_sums

KEPT = 4096
"""Aggregates kept (each a few numbers or a short table); the least recently used go first."""
_kept: OrderedDict[tuple[object, ...], object] = OrderedDict()
_computing: dict[tuple[object, ...], threading.Event] = {}
"""Aggregates being computed now, each with what tells its waiters it is done."""
_lock = threading.Lock()
T = TypeVar("T")


def run_state(db: Store, run: RunRecord, sums: RunSums | None = None) -> tuple[object, ...]:
    """What changes whenever the run's results may have: store, run, counts, status, end.

    The counts are the run's kept sums (`run_tallies`; `sums` where the caller has them).
    """
    counts = (sums or run_sums(db, run.id)).counts
    return (str(db.path.resolve()), run.id, counts["ok"], counts["error"], run.status, run.ended_at)


def remembered(state: tuple[object, ...], name: str, compute: Callable[[], T]) -> T:
    """`compute()` for the run in `state`, from memory when it was computed in that state.

    `name` tells the aggregates of one run apart (with their arguments, e.g. "summary:scenario").
    Requests that want the same aggregate while it is being computed wait for that computation
    rather than repeat it: a team opening a large run at once would otherwise compute its
    headline once per visitor, each slower for the others. The value is shared by every later
    request: callers read it and never change it.
    """
    key = (*state, name)
    with _lock:
        if key in _kept:
            _kept.move_to_end(key)
            return cast(T, _kept[key])  # stored by this function for this `name`
        running = _computing.get(key)
        if running is None:
            _computing[key] = threading.Event()
    if running is not None:
        running.wait()
        with _lock:
            if key in _kept:
                return cast(T, _kept[key])
        return compute()  # the first computation failed: this request tries its own
    try:
        value = compute()
        with _lock:
            _kept[key] = value
            if len(_kept) > KEPT:
                _kept.popitem(last=False)
    finally:
        with _lock:
            _computing.pop(key).set()
    return value
