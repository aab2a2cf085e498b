"""A running run's page follows it: the progress JSON changes as results are committed."""

import threading
import time
from pathlib import Path

from pydantic import JsonValue

import rulebench
from rulebench.core.errors import StoreError
from rulebench.engine.runner import RunReport
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord

from tests.report.html_page import Page
from tests.web.explorer_store import explorer, synthetic_result


def test_progress_counts_and_latest_items_follow_the_store_writer(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/live", {"task": "scenarios"})
        writer = db.writer()
        with explorer(store) as client:
            url = f"/api/runs/{run.id}/progress"
            assert client.get(url).json()["counts"]["results"] == 0
            page = Page(client.get(f"/runs/{run.id}").text)
            [section] = [a for a in page.tags("section") if a.get("data-progress-url")]
            assert section["data-progress-url"] == url
            assert "/static/live.js" in [a.get("src") for a in page.tags("script")]
            seen = []
            for batch in range(3):
                for index in range(batch * 7, batch * 7 + 7):
                    writer.put_result(run.id, synthetic_result(index))
                writer.flush()
                progress = client.get(url).json()
                seen.append(progress["counts"])
                assert progress["status"] == "running"
                newest = [row["id"] for row in progress["latest"]]
                assert newest == [f"item-{i:06d}" for i in range(batch * 7 + 6, -1, -1)][:10]
            writer.close()
            db.finish_run(run.id, "completed", {})
            done = client.get(url).json()
            finished_page = Page(client.get(f"/runs/{run.id}").text)
    assert [counts["results"] for counts in seen] == [7, 14, 21]
    assert [counts["error"] for counts in seen] == [1, 2, 3]  # every 7th is an error
    assert seen[-1] == {"results": 21, "passed": 12, "failed": 6, "excluded": 0, "error": 3}
    assert done["status"] == "completed"
    scripts = [attrs.get("src") for attrs in finished_page.tags("script")]
    assert "/static/live.js" not in scripts  # a finished run's page polls nothing


SLOW_RUN_ITEMS = 24
"""The items of `start_slow_run`'s run: 24 kinship items, one at a time, 50 ms each."""


def start_slow_run(store: Path) -> tuple[threading.Thread, list[RunReport]]:
    """A run in a thread, slow enough to be watched growing; its report once it ends."""
    config: dict[str, JsonValue] = {"tasks": ["kinship"], "per_group": SLOW_RUN_ITEMS}
    report: list[RunReport] = []
    runner = threading.Thread(
        target=lambda: report.append(
            rulebench.run(
                "inferential",
                "scripted/echo",
                config=config,
                store=store,
                concurrency=1,
                model_args={"delay_s": "0.05"},
            )
        )
    )
    runner.start()
    return runner, report


def started_run(store: Path) -> RunRecord | None:
    """The store's one run once it has been created."""
    try:
        with Store(store, readonly=True) as db:
            runs = db.list_runs()
    except StoreError:  # not created yet, or its schema not written yet
        return None
    return runs[0] if runs else None


def test_a_run_in_progress_is_seen_growing_while_it_runs(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    runner, _ = start_slow_run(store)
    counts: list[int] = []
    statuses: set[str] = set()
    try:
        deadline = time.monotonic() + 60
        while (run := started_run(store)) is None:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        with explorer(store) as client:
            while runner.is_alive() and time.monotonic() < deadline:
                progress = client.get(f"/api/runs/{run.id}/progress").json()
                counts.append(progress["counts"]["results"])
                statuses.add(progress["status"])
                time.sleep(0.1)
            runner.join(60)
            final = client.get(f"/api/runs/{run.id}/progress").json()
    finally:
        runner.join(60)
    assert counts == sorted(counts) and len(set(counts)) > 2, counts  # seen growing
    assert "running" in statuses
    assert final["status"] == "completed" and final["counts"]["results"] == SLOW_RUN_ITEMS
