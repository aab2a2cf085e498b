"""What `runs show` says about a run is composed by the library, as plain text."""

from pathlib import Path

from pydantic import JsonValue

from rulebench.engine.store.records import RunRecord
from rulebench.report.run_facts import (
    fact_lines,
    resume_line,
    run_heading,
    shard_hints,
    training_facts,
    why_line,
)


def record(task: str = "scenarios", notes: dict[str, JsonValue] | None = None) -> RunRecord:
    return RunRecord(
        id="20260101-000000-abcdef",
        task=task,
        model="scripted/echo",
        config={},
        version="1.0",
        started_at="2026-01-01T00:00:00+00:00",
        ended_at=None,
        status="failed",
        pid=None,
        notes=notes or {},
    )


def test_the_heading_names_the_run_then_what_ran() -> None:
    title, rest = run_heading(record(), "killed")
    assert title + rest == "Run 20260101-000000-abcdef  scenarios on scripted/echo  status: killed"


def test_tuning_facts_are_aligned_and_those_not_measured_left_out() -> None:
    notes: dict[str, JsonValue] = {"steps": 10, "loss_curve": [[1, 3.0], [10, 1.5]]}
    lines = fact_lines(training_facts(notes))
    assert lines == [
        "steps              10",
        "device, precision  -, -",
        "last logged loss   1.5 (step 10)",
    ]


def test_why_is_said_unless_the_run_completed_or_its_errors_say_it() -> None:
    assert why_line("failed", "the backend went away") == "why failed: the backend went away"
    assert why_line("completed", "anything") is None
    assert why_line("failed", "3 of 5 items ended in an error") is None
    assert why_line("killed", "") is None


def test_shard_hints_name_the_missing_shards_and_resume_the_unfinished_ones() -> None:
    shard: dict[str, JsonValue] = {
        "index": 1,
        "run": "r1",
        "status": "interrupted",
        "store": "/tmp/s1.sqlite",
    }
    notes: dict[str, JsonValue] = {"shard_count": 3, "shards": {"1": shard}}
    asked: list[tuple[str, Path | None]] = []

    def resume(run_id: str, store: Path | None) -> str:
        asked.append((run_id, store))
        return f"finish {run_id}"

    missing, unfinished = shard_hints(notes, resume)
    assert missing.startswith("Missing shards 2/3, 3/3: ") and "--shard 2/3" in missing
    assert (
        unfinished
        == "Shard 1/3 is interrupted: finish it with `finish r1`, then merge its store again"
    )
    assert asked == [("r1", Path("/tmp/s1.sqlite"))]
    assert resume_line("rulebench run --resume r1") == "Resume with: rulebench run --resume r1"
