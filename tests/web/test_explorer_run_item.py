"""A run's items show tokens and latency; an inferential item shows its gold; live pages end.

The progress JSON carries the summary table and the end of a run (completed or killed), so a
page following a run shows its final state without a reload.
"""

import sqlite3
from pathlib import Path

from pydantic import JsonValue

import rulebench
from rulebench.core.items import ItemResult
from rulebench.core.messages import Message, Usage
from rulebench.engine.store.database import Store

from tests.report.html_page import Page
from tests.stored_json import json_at
from tests.web.explorer_page import items_of
from tests.web.explorer_store import explorer, synthetic_result

SUMMARY_CELLS = ("group", "count", "errors", "accuracy", "pass_rate", "excluded")


def costly_result(index: int) -> ItemResult:
    """A synthetic result with its own token counts and latency."""
    return synthetic_result(index).model_copy(
        update={
            "usage": Usage(prompt_tokens=100 + index, completion_tokens=index),
            "cached_usage": Usage(prompt_tokens=7, completion_tokens=3),
            "latency_s": 0.25 * index,
        }
    )


def test_item_rows_show_the_tokens_and_latency_the_store_holds(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/costly", {"task": "scenarios"})
        writer = db.writer()
        for index in range(5):
            writer.put_result(run.id, costly_result(index))
        writer.close()
    with explorer(store) as client:
        rows = items_of(Page(client.get(f"/runs/{run.id}").text))
        latest = client.get(f"/api/runs/{run.id}/progress").json()["latest"]
    by_id = {row["item"]: row for row in rows}
    assert len(by_id) == 5
    for index in range(5):
        row = by_id[f"item-{index:06d}"]
        assert row["tokens in/out"] == f"{100 + index}/{index}"  # cached replies not counted
        assert float(row["latency s"]) == 0.25 * index
    # The live list carries the same cells.
    assert [(r["id"], r["tokens"], r["latency"]) for r in latest] == [
        (f"item-{i:06d}", f"{100 + i}/{i}", f"{0.25 * i:.2f}") for i in range(4, -1, -1)
    ]


def test_an_inferential_item_shows_its_gold_answer_and_both_extraction_modes(
    tmp_path: Path,
) -> None:
    store = tmp_path / "s.sqlite"
    config: dict[str, JsonValue] = {
        "tasks": ["kinship"],
        "per_group": 1,
        "grid": {"counterfactual": [False, True]},
        "extract": "robust",
    }
    run_id = rulebench.run("inferential", "scripted/echo", config=config, store=store).run.id
    with Store(store, readonly=True) as db:
        results = list(db.iter_results(run_id))
    kinds = {bool(r.metadata.get("counterfactual")) for r in results}
    assert kinds == {False, True}
    with explorer(store) as client:
        for result in results:
            page = Page(client.get(f"/runs/{run_id}/items/{result.item_id}").text)
            gold = str(result.metadata["gold"])
            shown = " ".join(page.text)
            if result.metadata["counterfactual"]:
                assert f"gold answer {gold} (counterfactual rules)" in shown.replace("\n", "")
            else:
                assert f"gold answer{gold}answer" in "".join(t.strip() for t in page.text)
            assert result.outcome is not None
            details = result.outcome.details
            rows = page.table_with(["mode", "answer", "correct", "refused"])[1:]
            assert [row[0] for row in rows] == ["paper", "robust (scored)"]
            for row, mode in zip(rows, ("paper", "robust"), strict=True):
                assert row[1] == json_at(details, mode, "answer")
                assert row[2] == ("yes" if json_at(details, mode, "correct") else "no")


def test_a_scenario_item_has_no_gold_line(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/x", {"task": "scenarios"})
        writer = db.writer()
        writer.put_result(run.id, synthetic_result(1))
        writer.close()
    with explorer(store) as client:
        page = Page(client.get(f"/runs/{run.id}/items/item-000001").text)
    assert "gold answer" not in page.text


def summary_of(page: Page) -> list[list[str]]:
    [table] = [t for t in page.tables if t and t[0][:3] == ["group", "items", "errors"]]
    return table[1:]


def test_progress_carries_the_summary_table_the_page_shows(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/live", {"task": "scenarios"})
        writer = db.writer()
        with explorer(store) as client:
            url = f"/api/runs/{run.id}/progress"
            for batch in range(2):
                for index in range(batch * 16, batch * 16 + 16):
                    writer.put_result(run.id, synthetic_result(index))
                writer.flush()
                progress = client.get(url).json()
                page = Page(client.get(f"/runs/{run.id}").text)
                shown = [[str(row[c]) for c in SUMMARY_CELLS] for row in progress["summary"]]
                assert shown == summary_of(page)
                assert shown[-1][:2] == ["all", str(16 * (batch + 1))]
            writer.close()


def test_progress_says_when_a_run_completes_or_its_process_is_gone(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        done = db.create_run("scenarios", "scripted/live", {"task": "scenarios"})
        gone = db.create_run("scenarios", "scripted/live", {"task": "scenarios"})
        with explorer(store) as client:
            before = client.get(f"/api/runs/{done.id}/progress").json()
            db.finish_run(done.id, "completed", {})
            with sqlite3.connect(store) as connection:  # its process died without a word
                connection.execute("UPDATE runs SET pid = 2147483646 WHERE id = ?", (gone.id,))
            connection.close()
            after = client.get(f"/api/runs/{done.id}/progress").json()
            killed = client.get(f"/api/runs/{gone.id}/progress").json()
            killed_page = Page(client.get(f"/runs/{gone.id}").text)
    assert (before["status"], before["ended_at"]) == ("running", "-")
    assert after["status"] == "completed" and after["ended_at"] != "-"
    assert killed["status"] == "killed"
    scripts = [attrs.get("src") for attrs in killed_page.tags("script")]
    assert "/static/live.js" not in scripts  # a killed run's page follows nothing
    assert not any("in progress" in text for text in killed_page.text)
    assert not any(attrs.get("class") == "live-badge" for _, attrs in killed_page.elements)


def test_a_message_only_item_keeps_its_columns(tmp_path: Path) -> None:
    """An error result (no reply, no usage) still fills every column."""
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/x", {"task": "scenarios"})
        writer = db.writer()
        writer.put_result(
            run.id,
            ItemResult(item_id="e", messages=(Message(role="user", content="q"),), error="boom"),
        )
        writer.close()
    with explorer(store) as client:
        [row] = items_of(Page(client.get(f"/runs/{run.id}").text))
    shown = (row["tokens in/out"], row["latency s"], row["reply or error"])
    assert shown == ("0/0", "0.00", "boom")
