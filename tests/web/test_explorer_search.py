"""The search page: finds replies and prompts in one run or all, pages, and explains bad queries."""

import re
from pathlib import Path

import pytest

from rulebench.testing.older_store import drop_search_index

from tests.report.html_page import Page
from tests.web.explorer_store import (
    HOSTILE,
    explorer,
    scenarios_run,
    synthetic_run,
)

HEADER = ["run", "item", "verdict", "match"]


def _rows(html: str) -> list[dict[str, str]]:
    table = Page(html).table_with(HEADER)
    return [dict(zip(HEADER, row, strict=True)) for row in table[1:]]


def test_search_finds_a_reply_across_runs_and_within_one(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    first = synthetic_run(store, 30)
    second = synthetic_run(store, 30)
    with explorer(store) as client:
        across = client.get("/search", params={"q": '"reply 12"'})
        within = client.get("/search", params={"q": '"reply 12"', "run": second})
    assert across.status_code == 200
    assert {(r["run"], r["item"]) for r in _rows(across.text)} == {
        (first, "item-000012"),
        (second, "item-000012"),
    }
    [row] = _rows(within.text)
    assert (row["run"], row["item"]) == (second, "item-000012")
    assert _marked(within.text) == ["reply 12"]
    links = Page(within.text).attribute_values("href")
    assert f"/runs/{second}/items/item-000012" in links


def _marked(html: str) -> list[str]:
    """The texts inside <mark> elements, in order."""
    return re.findall(r"<mark>(.*?)</mark>", html)


def test_results_are_paged_with_a_count(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run = synthetic_run(store, 120)  # every 7th is an error, whose prompt still matches
    with explorer(store) as client:
        first = client.get("/search", params={"q": "question", "run": run, "size": 50})
        third = client.get("/search", params={"q": "question", "run": run, "size": 50, "page": 3})
    assert len(_rows(first.text)) == 50 and len(_rows(third.text)) == 20
    assert "of 120" in first.text
    seen = {r["item"] for r in _rows(first.text)} | {r["item"] for r in _rows(third.text)}
    assert len(seen) == 70
    assert "error" in {r["verdict"] for r in _rows(first.text)}


def test_a_bad_query_is_explained_not_a_server_error(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    synthetic_run(store, 5)
    with explorer(store) as client:
        page = client.get("/search", params={"q": '"unclosed'})
    assert page.status_code == 400
    [problem] = [t for t in Page(page.text).text if "cannot read the query" in t]
    assert "double quotes" in problem


def test_model_text_in_a_hit_is_shown_as_text(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    scenarios_run(store, "scripted/fixed", reply=HOSTILE)
    with explorer(store) as client:
        page = client.get("/search", params={"q": "pwned"})
    assert page.status_code == 200 and _rows(page.text)
    parsed = Page(page.text)
    assert not parsed.tags("script") and not parsed.tags("img")
    assert "window.__pwned" in "".join(parsed.text)


def test_no_match_says_so_and_an_empty_box_searches_nothing(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    synthetic_run(store, 5)
    with explorer(store) as client:
        none = client.get("/search", params={"q": "aardvark"})
        empty = client.get("/search")
    assert "No item matches" in none.text
    assert empty.status_code == 200 and "No item matches" not in empty.text


def test_the_run_page_has_a_box_that_searches_that_run(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = synthetic_run(store, 5)
    with explorer(store) as client:
        page = Page(client.get(f"/runs/{run_id}").text)
    [form] = [f for f in page.tags("form") if f.get("action") == "/search"]
    assert form.get("method") == "get"
    hidden = [i for i in page.tags("input") if i.get("name") == "run"]
    assert [i.get("value") for i in hidden] == [run_id]


def test_an_unindexed_read_only_store_is_served_and_search_says_how_to_index_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.sqlite"
    run_id = synthetic_run(store, 5)
    drop_search_index(store)  # as an older rulebench left it
    # Read-only media: tests run as root, for whom permission bits grant every write.
    monkeypatch.setattr("rulebench.engine.store.connection.os.access", lambda *_: False)
    with explorer(store) as client:
        runs = client.get("/")
        search = client.get("/search", params={"q": "reply"})
    assert runs.status_code == 200 and run_id in runs.text
    assert search.status_code == 503
    [problem] = [t for t in Page(search.text).text if "no search index yet" in t]
    assert "where the file can be written" in problem
