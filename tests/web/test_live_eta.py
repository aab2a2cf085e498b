"""A running run's page shows its items done of the total and an ETA at the last minute's pace."""

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rulebench.engine.store.database import Store
from rulebench.web.explorer.live_eta import UNKNOWN, duration_text, estimate_s, run_eta

from tests.report.html_page import Page
from tests.web.explorer_store import explorer, synthetic_result
from tests.web.test_live_progress import SLOW_RUN_ITEMS, start_slow_run, started_run


def test_the_estimate_is_the_remaining_items_at_the_recent_pace() -> None:
    assert estimate_s(remaining=100, recent=20, span_s=10) == 50  # 2 items a second
    assert estimate_s(remaining=0, recent=20, span_s=10) == 0
    assert estimate_s(remaining=100, recent=1, span_s=10) is None  # one result: no pace yet
    assert estimate_s(remaining=100, recent=10, span_s=0) == 10  # all within one second


def test_durations_read_rounded() -> None:
    assert duration_text(0) == "any moment"
    assert duration_text(39.2) == "about 40 s"
    assert duration_text(200) == "about 3 min 20 s"
    assert duration_text(45 * 60 + 7) == "about 45 min"
    assert duration_text(3 * 3600 + 5 * 60) == "about 3 h 5 min"


def test_a_running_run_shows_its_total_and_an_eta_as_results_arrive(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/live", {"task": "scenarios"})
        db.note_total(run.id, 1000)
        writer = db.writer()
        with explorer(store) as client:
            url = f"/api/runs/{run.id}/progress"
            before = client.get(url).json()
            page = Page(client.get(f"/runs/{run.id}").text)
            for index in range(40):
                writer.put_result(run.id, synthetic_result(index))
            writer.flush()
            during = client.get(url).json()
            writer.close()
            db.finish_run(run.id, "completed", {})
            after = client.get(url).json()
    assert (before["done"], before["total"], before["eta"]) == (0, 1000, UNKNOWN)
    assert before["items"] == "0 of 1,000"
    assert any("data-live-items" in span for span in page.tags("span"))
    assert "ETA:" in "".join(page.text)
    assert (during["done"], during["total"], during["items"]) == (40, 1000, "40 of 1,000")
    assert during["eta_s"] is not None and during["eta_s"] > 0
    assert during["eta"].startswith("about ")
    assert (after["status"], after["eta"], after["eta_s"]) == ("completed", UNKNOWN, None)


def test_no_total_no_eta(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/live", {"task": "scenarios"})
        writer = db.writer()
        for index in range(5):
            writer.put_result(run.id, synthetic_result(index))
        writer.close()
        with explorer(store) as client:
            progress = client.get(f"/api/runs/{run.id}/progress").json()
    assert (progress["total"], progress["items"], progress["eta"]) == (None, "5 of —", UNKNOWN)


def test_a_stalled_run_shows_no_eta(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/live", {"task": "scenarios"})
        db.note_total(run.id, 10)
        writer = db.writer()
        for index in range(5):
            writer.put_result(run.id, synthetic_result(index))
        writer.close()
        run = db.get_run(run.id)
        now = datetime.now(UTC)
        assert run_eta(db, run, 5, "running", now).seconds is not None
        later = run_eta(db, run, 5, "running", now + timedelta(minutes=2))
    assert (later.seconds, later.items_text()) == (None, "5 of 10")


def test_the_runner_notes_the_total_for_the_live_page(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    runner, report = start_slow_run(store)
    totals: set[object] = set()
    try:
        deadline = time.monotonic() + 60
        while (run := started_run(store)) is None:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        with explorer(store) as client:
            while runner.is_alive() and time.monotonic() < deadline:
                progress = client.get(f"/api/runs/{run.id}/progress").json()
                if progress["status"] == "running":
                    totals.add(progress["total"])
                time.sleep(0.1)
    finally:
        runner.join(60)
    assert report and report[0].run.status == "completed"
    assert SLOW_RUN_ITEMS in totals
