"""The lines a batch says about its runs, as every front end shows them."""

from rulebench.study.batch import BatchRow, PlannedRun
from rulebench.study.batch_notes import incomplete_lines, run_ending, run_heading


def _row(**fields: object) -> BatchRow:
    base: dict[str, object] = {"model": "m", "task": "smoke", "run_id": "r1"}
    return BatchRow.model_validate(base | fields)


def test_each_run_is_announced_with_its_count() -> None:
    planned = PlannedRun(model="openai/x", task="smoke", spec=None)
    assert run_heading(2, 3, planned, "new") == ("run 2 of 3:", "openai/x on smoke")
    assert run_heading(1, 1, planned, "resumed")[1].endswith("(resuming its stopped run)")


def test_a_run_ends_with_how_it_went() -> None:
    reused = _row(status="completed", how="reused")
    assert run_ending(reused) == "completed earlier as run r1: not run again"
    assert run_ending(_row(status="completed", how="new", wall_s=1.25)) == "completed in 1.2s"
    assert run_ending(_row(status="completed", how="new")) is None  # did not run now
    failed = _row(status="failed", how="new", problem="server down")
    assert run_ending(failed) == "failed (run r1): server down"
    unstarted = _row(status="not started", how="not started", run_id=None)
    assert incomplete_lines([failed, unstarted]) == [
        "m on smoke: failed (run r1): server down",
        "m on smoke: not started: -",
    ]
