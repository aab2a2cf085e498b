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

from rulebench.engine.records import RunRecord
from rulebench.engine.store import Store

KEPT = 4096
"""Aggregates kept (each a few numbers or a short table); the least recently used go first."""
_kept: OrderedDict[tuple[object, ...], object] = OrderedDict()
_lock = threading.Lock()
T = TypeVar("T")


def run_state(db: Store, run: RunRecord) -> tuple[object, ...]:
    """What changes whenever the run's results may have: store, run, counts, status, end."""
    counts = db.count_results(run.id)
    return (str(db.path.resolve()), run.id, counts["ok"], counts["error"], run.status, run.ended_at)


def remembered(state: tuple[object, ...], name: str, compute: Callable[[], T]) -> T:
    """`compute()` for the run in `state`, from memory when it was computed in that state.

    `name` tells the aggregates of one run apart (with their arguments, e.g. "summary:scenario").
    Two requests may compute the same aggregate at once; both get a correct value. The value is
    shared by every later request: callers read it and never change it.
    """
    key = (*state, name)
    with _lock:
        if key in _kept:
            _kept.move_to_end(key)
            return cast(T, _kept[key])  # stored by this function for this `name`
    value = compute()
    with _lock:
        _kept[key] = value
        if len(_kept) > KEPT:
            _kept.popitem(last=False)
    return value
