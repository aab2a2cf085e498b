"""Hostile text in saved cases stays text on the playground's pages that list and replay them.

A save folder is shared and its files can be edited by hand, so notes, strategies, models and
case ids are outside text, as a visitor's form values echoed back are; pages are parsed as a
browser parses them (`assert_inert`, as for the explorer's pages).
"""

import json
from pathlib import Path
from urllib.parse import urlencode

from rulebench.scenarios.played import COLLECTED_FIELD

from tests.report.html_page import Page
from tests.web.explorer_store import HOSTILE
from tests.web.playground_app import player, playground_app, send, start
from tests.web.test_collected_page import save, wait_for
from tests.web.test_explorer_safety import SHOWN, assert_inert


def hostile_file(folder: Path) -> None:
    """Rewrite the saved case with hostile notes, model, strategy and id, as a hand edit might."""
    [path] = folder.glob("*.jsonl")
    row = json.loads(path.read_text(encoding="utf-8"))
    row["round"] = HOSTILE
    row["id"] = "x" + HOSTILE[:60]
    row[COLLECTED_FIELD] = {"model": HOSTILE, "notes": HOSTILE, "broke": True}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")


def test_hostile_notes_strategy_and_model_stay_text_on_saved_collected_and_job_pages(
    tmp_path: Path,
) -> None:
    with player(playground_app(tmp_path)) as client:
        save(client, "hello", "Just Ask", "a.jsonl")
        hostile_file(tmp_path / "cases")
        saved = client.get("/play/saved")
        collected = client.get("/play/collected")
        filters = {"strategy": HOSTILE[:200], "model": HOSTILE[:200]}
        filtered = client.get("/play/collected?" + urlencode(filters))
        started = client.post("/play/collected/run", data={"model": "scripted/echo"})
        job = wait_for(client, str(started.url), "done:")
        refused = client.post("/play/collected/run", data={"model": HOSTILE})
    for response in (saved, collected, filtered, started, refused):
        assert response.status_code in (200, 422), response.text
        assert_inert(response.text)
    assert_inert(job)
    for html in (saved.text, collected.text, job):  # shown whole, as text
        assert any(SHOWN in text for text in Page(html).text), html
    strategies = Page(collected.text).tags("a")
    assert all("://" not in str(a.get("href")) for a in strategies)


def test_a_refused_strategy_or_file_name_is_echoed_as_text(tmp_path: Path) -> None:
    with player(playground_app(tmp_path)) as client:
        url = start(client)
        send(client, url, "hello")
        for form in ({"strategy": HOSTILE}, {"file": HOSTILE}, {"notes": "x" * 5000 + HOSTILE}):
            response = client.post(f"{url}/save", data=form)
            assert response.status_code == 422, form
            assert "not saved" in response.text
            assert_inert(response.text)
    assert not list((tmp_path / "cases").glob("*.jsonl"))
