"""A run's kept sums are the store's own aggregates after every write, retry and resume."""

import sqlite3
from pathlib import Path

from rulebench.core.items import ItemResult, Outcome
from rulebench.core.messages import Message, Usage
from rulebench.engine.store.database import Store
from rulebench.web.explorer.run_tallies import run_sums, run_tallies

from tests.report.html_page import Page
from tests.web.explorer_store import explorer, put_results

GROUPS = (None, "scenario")


def result(index: int, *, error: str | None = None, tokens: int = 3, repeat: int = 0) -> ItemResult:
    """Item `index`: passed, failed or scored by its index, or the error given."""
    scenario = ("Encryption", "Hodor", "SimonSays")[index % 3]
    metadata = {"scenario": scenario, "repeat": repeat}
    usage = Usage(prompt_tokens=tokens, completion_tokens=index % 4)
    asked = (Message(role="user", content=f"question {index}"),)
    if error is not None:
        return ItemResult(
            item_id=f"item-{index}", messages=asked, error=error, usage=usage, metadata=metadata
        )
    outcome = Outcome(passed=index % 2 == 0) if index % 5 else Outcome(score=0.5 * (index % 3))
    return ItemResult(
        item_id=f"item-{index}",
        messages=(*asked, Message(role="assistant", content="ok")),
        reply="ok",
        outcome=outcome,
        usage=usage,
        metadata=metadata,
    )


def write(db: Store, run_id: str, results: list[ItemResult]) -> None:
    writer = db.writer()
    for item in results:
        writer.put_result(run_id, item)
    writer.close()


def assert_as_stored(store: Path, run_id: str) -> None:
    """Every grouping's kept sums equal what the store sums now, read by a reader as a page is."""
    with Store(store, readonly=True) as db:
        for group_by in GROUPS:
            sums = run_sums(db, run_id, group_by)
            assert sorted(sums.tallies) == sorted(db.tally_results(run_id, group_by))
            assert sums.verdicts == db.browser().verdict_counts(run_id)
            assert sums.counts == db.count_results(run_id)
            assert not sums.has_repeats


def test_kept_sums_follow_new_results_retried_errors_and_a_resume(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/m", {})
        assert_as_stored(store, run.id)  # no result yet
        for start in (0, 10, 20):
            batch = [
                result(i, error="503" if i % 4 == 3 else None) for i in range(start, start + 10)
            ]
            write(db, run.id, batch)
            assert_as_stored(store, run.id)
        # Errors retried in place while the run is stored as running: one now finishes, one
        # fails again with other tokens (the same counts, other sums).
        write(db, run.id, [result(3), result(7, error="timeout", tokens=40)])
        assert_as_stored(store, run.id)
        db.finish_run(run.id, "completed", {})
        assert_as_stored(store, run.id)
        assert_as_stored(store, run.id)  # a finished run, read again from what is kept
        # A resume claims the run and retries its errors in place; it then ends again.
        db.reopen_run(run.id)
        write(db, run.id, [result(11), result(15, error="refused", tokens=9), result(30)])
        assert_as_stored(store, run.id)
        db.finish_run(run.id, "completed", {"resumed": True})
        write_after = [result(19)]  # a retry recorded after the end (the run's identity moved)
        assert_as_stored(store, run.id)
        db.reopen_run(run.id)
        write(db, run.id, write_after)
        db.finish_run(run.id, "interrupted", {})
        assert_as_stored(store, run.id)


def test_sums_are_read_again_when_the_runs_rows_are_not_what_was_kept(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/m", {})
        write(db, run.id, [result(i) for i in range(12)])
        db.finish_run(run.id, "completed", {})
    assert_as_stored(store, run.id)
    # Something outside rulebench removes finished results: the count no longer fits.
    with sqlite3.connect(store) as raw:
        raw.execute("DELETE FROM results WHERE item_id IN ('item-2', 'item-5')")
    assert_as_stored(store, run.id)
    with Store(store, readonly=True) as db:
        assert run_sums(db, run.id).verdicts.results == 10


def test_sums_are_kept_apart_by_store_run_and_grouping(tmp_path: Path) -> None:
    with Store(tmp_path / "one.sqlite") as one, Store(tmp_path / "two.sqlite") as two:
        first, second = one.create_run("t", "m", {}), one.create_run("t", "m", {})
        write(one, first.id, [result(i) for i in range(6)])
        write(one, second.id, [result(i, error="503") for i in range(2)])
        other = two.create_run("t", "m", {})
        write(two, other.id, [result(1)])
        assert run_sums(one, first.id).counts == {"ok": 6, "error": 0}
        assert run_sums(one, second.id).counts == {"ok": 0, "error": 2}
        assert run_sums(two, other.id).counts == {"ok": 1, "error": 0}
        grouped = run_sums(one, first.id, "scenario").tallies
        assert sorted(t.group for t in grouped) == ["Encryption", "Hodor", "SimonSays"]
        assert [t.group for t in run_sums(one, first.id).tallies] == ["all"]


def test_a_run_with_repeats_gets_the_stores_per_sample_tallies(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as db:
        run = db.create_run("scenarios", "scripted/m", {})
        repeats = [
            result(i, repeat=r).model_copy(update={"item_id": f"{i}-{r}"})
            for i in range(6)
            for r in (0, 1)
        ]
        write(db, run.id, repeats)
        for group_by in GROUPS:
            assert run_sums(db, run.id, group_by).has_repeats
            assert run_tallies(db, run.id, group_by) == db.tally_results(run.id, group_by)


def errors_listed(html: str) -> list[str]:
    """The runs list's errors column."""
    header = ["id", "run", "task", "score", "n", "errors", "tokens", "cost", "started", "status"]
    return [row[header.index("errors")] for row in Page(html).table_with(header)[1:]]


def test_progress_and_runs_list_show_a_retried_error_at_once(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/live", {"task": "scenarios"})
        writer = db.writer()
        with explorer(store) as client:
            put_results(writer, run.id, range(14))  # items 6 and 13 are errors
            writer.flush()
            url = f"/api/runs/{run.id}/progress"
            assert client.get(url).json()["counts"]["error"] == 2
            assert errors_listed(client.get("/").text) == ["2"]
            writer.put_result(run.id, result(6).model_copy(update={"item_id": "item-000006"}))
            writer.flush()
            progress = client.get(url).json()
            listed = errors_listed(client.get("/").text)
        writer.close()
    assert progress["counts"] == {
        "results": 14,
        "passed": 9,
        "failed": 4,
        "excluded": 0,
        "error": 1,
    }
    assert progress["summary"][-1]["errors"] == "1"
    assert listed == ["1"]
