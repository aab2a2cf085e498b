"""The lines a merge ends with: what it added, and the runs shards were joined into."""

from pathlib import Path

from rulebench.engine.store.merge import MergeReport
from rulebench.engine.store.merge_notes import merge_lines


def test_the_summary_counts_what_was_added_and_names_each_joined_run() -> None:
    report = MergeReport(
        runs_added=2, results_added=10, cache_added=4, results_replaced=1, sharded_runs=["abc"]
    )

    lines = merge_lines(report, [Path("a.sqlite"), Path("b.sqlite")], Path("all.sqlite"))

    assert lines == [
        "merged 2 store(s) into all.sqlite: 2 runs, 10 results, 4 cache entries added; "
        "1 error results replaced by later ones",
        "sharded run abc: see `rulebench runs show abc`",
    ]


def test_nothing_replaced_is_not_mentioned() -> None:
    report = MergeReport(runs_added=0, results_added=0, cache_added=0, sharded_runs=[])

    assert merge_lines(report, [Path("a.sqlite")], Path("t.sqlite")) == [
        "merged 1 store(s) into t.sqlite: 0 runs, 0 results, 0 cache entries added"
    ]
