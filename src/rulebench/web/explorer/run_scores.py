"""A run's headline score as `rulebench report` gives it, for the runs list.

Computed by the report's own code, never a formula of its own: a scenarios run's headline
(the mean of the four suite x bucket pass rates, None unless all four were run), an
inferential run's overall accuracy (answers read as the report reads them by default), and
for other tasks the overall rate of `rulebench runs show`'s summary. The report reads every
result of a run, so a score is kept in memory until the run's results change (`run_memo`).
"""

from typing import NamedTuple

from rulebench.core.errors import RulebenchError
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord
from rulebench.engine.summary import summarize
from rulebench.web.explorer.run_memo import remembered, run_state
from rulebench.web.explorer.run_tallies import RunSums, run_tallies


class Headline(NamedTuple):
    """A run's headline: the point value (a fraction), the samples it counts, as printed.

    `value` is None where the report gives none; `text` then says why.
    """

    value: float | None
    n: int
    text: str


_NOTHING = Headline(None, 0, "no headline score: nothing counted yet")
_PARTIAL = Headline(
    None, 0, "no headline score: the report's needs both suites' harmless and helpful cases"
)


def headline_of(db: Store, run: RunRecord, sums: RunSums | None = None) -> Headline:
    """The run's headline score, or why it has none (nothing counted, a partial suite).

    `sums`: the run's ungrouped `run_sums`, where the caller has them already.
    """
    return remembered(run_state(db, run, sums), "headline", lambda: _headline(db, run))


def _headline(db: Store, run: RunRecord) -> Headline:
    try:
        return _compute(db, run)
    except RulebenchError as exc:  # results the report cannot read: it would fail too
        return Headline(None, 0, f"no headline score: {exc}")


def _compute(db: Store, run: RunRecord) -> Headline:
    if run.task == "scenarios":
        from rulebench.scenarios.scoring import headline, to_records

        rate = headline(to_records(db.iter_outcomes(run.id)))
        if rate is None:
            return _PARTIAL
        return Headline(rate.value, rate.n, rate.format()) if rate.n else _NOTHING
    if run.task == "inferential":
        from rulebench.inferential.analysis import accuracy
        from rulebench.inferential.analysis import to_records as inferential_records
        from rulebench.report.kinds import DEFAULT_EXTRACT

        found = accuracy(inferential_records(db.iter_results(run.id), DEFAULT_EXTRACT))
        return Headline(found.value, found.n, found.format()) if found.n else _NOTHING
    [overall] = summarize(run_tallies(db, run.id), grouped=False)
    share = overall.accuracy or overall.pass_rate
    return Headline(share.value, share.n, share.format()) if share and share.n else _NOTHING
