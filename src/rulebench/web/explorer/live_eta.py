"""A live run's items done of its total, and when it should end at its recent pace.

The total is the run's item count, which the runner notes when it starts (`Store.note_total`;
a shard or a task that cannot count its items has none). The pace is that of the last minute:
the results stored in the last `WINDOW_S` seconds over the time since the earliest of them,
so a run that slows down (a rate limit, a slower model) shows it within a minute, and one that
stalls shows no ETA rather than an old one.
"""

import math
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord

WINDOW_S = 60
"""The span of the recent results the pace is measured over."""
UNKNOWN = "—"


class Eta(NamedTuple):
    """A run's progress towards its total."""

    done: int
    """Items with a result (an error included: a resume retries it)."""
    total: int | None
    seconds: float | None
    """Until the last item, at the recent pace; None while not known."""

    def items_text(self) -> str:
        """`1,234 of 10,000` (`of —` while the total is unknown)."""
        total = UNKNOWN if self.total is None else f"{self.total:,}"
        return f"{self.done:,} of {total}"

    def eta_text(self) -> str:
        """`about 3 min 20 s`, or "—" while unknown."""
        return UNKNOWN if self.seconds is None else duration_text(self.seconds)


def estimate_s(remaining: int, recent: int, span_s: float) -> float | None:
    """Seconds for `remaining` items at `recent` items per `span_s`; None with too few to tell."""
    if recent < 2:
        return None
    return remaining * max(span_s, 1.0) / recent


def duration_text(seconds: float) -> str:
    """A rounded duration: `about 40 s`, `about 12 min 30 s`, `about 3 h 5 min`."""
    whole = math.ceil(seconds)
    if whole == 0:
        return "any moment"
    if whole < 60:
        return f"about {whole} s"
    minutes, rest = divmod(whole, 60)
    if minutes < 60:
        return f"about {minutes} min {rest} s" if minutes < 10 and rest else f"about {minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"about {hours} h {minutes} min" if minutes else f"about {hours} h"


def run_eta(db: Store, run: RunRecord, done: int, status: str, now: datetime | None = None) -> Eta:
    """The run's items done of its total and, while it runs, the time left at its recent pace.

    `status`: the run's effective one (`Store.effective_status`: a killed run has no ETA).
    """
    noted = run.notes.get("total")
    total = noted if isinstance(noted, int) and not isinstance(noted, bool) else None
    if status != "running":
        return Eta(done, total if total is not None else done, None)
    if total is None:
        return Eta(done, None, None)
    now = now or datetime.now(UTC)
    since = (now - timedelta(seconds=WINDOW_S)).isoformat(timespec="seconds")
    recent, earliest = db.run_delta().recent(run.id, since)
    if earliest is None:
        return Eta(done, total, None)
    span_s = (now - datetime.fromisoformat(earliest)).total_seconds()
    return Eta(done, total, estimate_s(max(total - done, 0), recent, span_s))
