"""The explorer's pages on real runs: the runs list, a run's items paged and filtered, an item.

Pages are read back with the stdlib HTML parser (tests/report/html_page.py), as a browser
would build them, so "shown" means the text is there and "escaped" means no element was made.
"""

import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import JsonValue

import rulebench
from rulebench.core.items import ItemResult
from rulebench.engine.store import browse
from rulebench.engine.store import database as engine_store
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import row_to_result

from tests.report.html_page import Page
from tests.stored_json import json_at
from tests.web.explorer_page import ids_of, items_of, link
from tests.web.explorer_store import explorer, scenarios_run, synthetic_run

SUMMARY_HEADER = [
    "group",
    "items",
    "errors",
    "accuracy % [95% CI]",
    "pass rate % [95% CI]",
    "not counted",
]


def query_of(url: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(url).query)


def test_runs_list_shows_every_run_and_filters_by_task_model_and_status(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    echo = scenarios_run(store, "scripted/echo")
    fixed = scenarios_run(store, "scripted/fixed")
    inferential = rulebench.run(
        "inferential", "scripted/echo", config={"tasks": ["kinship"], "per_group": 2}, store=store
    ).run.id
    with Store(store) as db:
        killed = db.create_run("scenarios", "scripted/echo", {})
    with sqlite3.connect(store) as connection:  # a "running" run whose process is gone: killed
        connection.execute("UPDATE runs SET pid = 2147483646 WHERE id = ?", (killed.id,))
    connection.close()

    def shown(url: str) -> list[str]:
        response = client.get(url)
        assert response.status_code == 200, response.text
        tables = [t for t in Page(response.text).tables if t[0][0] == "id"]
        return [row[0] for table in tables for row in table[1:]]

    with explorer(store) as client:
        assert set(shown("/")) == {echo, fixed, inferential, killed.id}
        assert shown("/?task=inferential") == [inferential]
        assert set(shown("/?task=scenarios&model=fixed")) == {fixed}
        assert shown("/?status=killed") == [killed.id]
        assert set(shown("/?status=completed&task=scenarios")) == {echo, fixed}
        assert shown("/?status=running") == []
        page = Page(client.get("/?task=scenarios&model=echo").text)
    [model_box] = [attrs for attrs in page.tags("input") if attrs.get("name") == "model"]
    assert model_box["value"] == "echo"  # the filter stays filled in after a reload
    selected = [attrs for attrs in page.tags("option") if "selected" in attrs]
    assert {"value": "scenarios", "selected": None} in selected


def test_run_items_are_paged_in_sql_with_links_that_keep_the_filters(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = synthetic_run(store, 2_000)
    with explorer(store) as client:
        first = Page(client.get(f"/runs/{run_id}").text)
        summary = first.table_with(SUMMARY_HEADER)
        # Counted in SQL over all 2,000: every 7th an error, a third of the rest failed.
        assert summary[-1][:3] == ["all", "2,000", "285"]
        assert summary[-1][4].startswith("66.") and summary[-1][4].endswith("(n=1715)")
        assert ids_of(first) == [f"item-{i:06d}" for i in range(50)]
        assert "items 1–50 of 2,000 (page 1 of 40)" in " ".join(first.text)
        assert link(first, "prev") is None
        following = link(first, "next")
        assert following == f"/runs/{run_id}?page=2"
        second = ids_of(Page(client.get(following).text))
        assert second == [f"item-{i:06d}" for i in range(50, 100)]

        url = f"/runs/{run_id}?verdict=failed&scenario=Hodor&size=20"
        page = Page(client.get(url).text)
        expected = [i for i in range(2_000) if i % 7 != 6 and i % 3 == 0 and i % 4 == 1]
        assert ids_of(page) == [f"item-{i:06d}" for i in expected[:20]]
        assert all(row["verdict"] == "failed" for row in items_of(page))
        assert f"of {len(expected)} (page 1 of" in " ".join(page.text)
        following = link(page, "next")
        assert following is not None
        assert query_of(following) == {
            "verdict": ["failed"],
            "scenario": ["Hodor"],
            "size": ["20"],
            "page": ["2"],
        }
        again = Page(client.get(url).text)  # a shared or reloaded URL shows the same page
        assert items_of(again) == items_of(page)

        errors = items_of(Page(client.get(f"/runs/{run_id}?verdict=error&error=503").text))
        assert len(errors) == 50
        assert all(row["reply or error"] == "server said 503" for row in errors)
        assert ids_of(Page(client.get(f"/runs/{run_id}?item=001234").text)) == ["item-001234"]
        last = Page(client.get(f"/runs/{run_id}?page=40").text)
        assert len(items_of(last)) == 50 and link(last, "next") is None


@pytest.mark.slow  # writing 100,000 indexed results takes a while; make test runs it
def test_a_page_of_a_100000_result_store_reads_a_page_not_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.sqlite"
    run_id = synthetic_run(store, 100_000)
    built: list[int] = []

    def counted(row: Any) -> ItemResult:
        built.append(1)
        return row_to_result(row)

    # A spy, not a fake: every result the explorer reads becomes an ItemResult here.
    monkeypatch.setattr(browse, "row_to_result", counted)
    monkeypatch.setattr(engine_store, "row_to_result", counted)
    with explorer(store) as client:
        client.get("/")  # templates compile once
        for url, most in (
            (f"/runs/{run_id}", 50),
            (f"/runs/{run_id}?page=1900", 50),
            (f"/runs/{run_id}?scenario=Encryption&verdict=passed&size=100", 100),
            (f"/api/runs/{run_id}/progress", 10),
            (f"/runs/{run_id}/items/item-099999", 1),
            # Sorted, and an item's neighbours in a sorted list: SQL, never the run in Python.
            (f"/runs/{run_id}?sort=latency&order=desc&page=1900", 50),
            (f"/runs/{run_id}/items/item-050000?verdict=failed&sort=verdict", 1),
            (f"/compare?a={run_id}&b={run_id}&page=7", 100),
        ):
            built.clear()
            response = client.get(url)
            assert response.status_code == 200, url
            # A page, never the run: bench/bench_web.py times these pages.
            assert 0 < len(built) <= most, (url, len(built))
        page = Page(client.get(f"/runs/{run_id}?page=1900").text)
        numbers = client.get(f"/api/compare?a={run_id}&b={run_id}").json()
    assert ids_of(page) == [f"item-{i:06d}" for i in range(94_950, 95_000)]
    assert "items 94,951–95,000 of 100,000 (page 1,900 of 2,000)" in " ".join(page.text)
    assert numbers["pairs"] == 100_000 - 100_000 // 7  # errors do not pair
    assert numbers["only_first_passed"] == numbers["only_second_passed"] == 0


def test_an_item_shows_prompt_reply_both_extraction_modes_and_verdict(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    config: dict[str, JsonValue] = {"tasks": ["kinship"], "per_group": 2, "extract": "paper"}
    run_id = rulebench.run("inferential", "scripted/echo", config=config, store=store).run.id
    with Store(store, readonly=True) as db:
        result = next(iter(db.iter_results(run_id)))
    assert result.outcome is not None and result.reply is not None
    details = result.outcome.details
    with explorer(store) as client:
        response = client.get(f"/runs/{run_id}/items/{result.item_id}")
        assert response.status_code == 200
        missing = client.get(f"/runs/{run_id}/items/no-such-item")
    page = Page(response.text)
    texts = page.text
    assert result.messages[0].content in texts  # the rendered prompt, whole
    assert result.reply in texts  # the raw reply, whole
    rows = page.table_with(["mode", "answer", "correct", "refused"])[1:]
    assert [row[0] for row in rows] == ["paper (scored)", "robust"]
    for row, mode in zip(rows, ("paper", "robust"), strict=True):
        assert row[1] == json_at(details, mode, "answer")
        assert row[2] == ("yes" if json_at(details, mode, "correct") else "no")
    assert "failed" in texts or "passed" in texts
    assert missing.status_code == 404
    assert f"run {run_id} has no result for item 'no-such-item'" in Page(missing.text).text


@pytest.mark.parametrize("path", ["/runs/nope", "/runs/nope/items/x", "/compare?a=nope&b=x"])
def test_an_unknown_run_is_a_404_page_naming_it(tmp_path: Path, path: str) -> None:
    store = tmp_path / "s.sqlite"
    synthetic_run(store, 3)
    with explorer(store) as client:
        response = client.get(path)
    assert response.status_code == 404
    assert any("no run 'nope'" in text for text in Page(response.text).text)


def test_a_missing_store_is_refused_before_serving(tmp_path: Path) -> None:
    from rulebench.core.errors import StoreError
    from rulebench.web.app import create_app

    with pytest.raises(StoreError, match="no results store at"):
        create_app(tmp_path / "absent.sqlite")
    assert not (tmp_path / "absent.sqlite").exists()


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("/?page=0", "page: Input should be greater than or equal to 1"),
        ("/runs/{run}?verdict=maybe", "verdict:"),
        ("/runs/{run}?size=100000", "size: Input should be less than or equal to 500"),
        ("/compare?show=some", "show:"),
    ],
)
def test_a_query_a_page_cannot_take_is_a_page_saying_which(
    tmp_path: Path, path: str, problem: str
) -> None:
    store = tmp_path / "s.sqlite"
    run_id = synthetic_run(store, 3)
    with explorer(store) as client:
        response = client.get(path.format(run=run_id))
        api = client.get(f"/api/runs/{run_id}/progress?latest=-1")
    assert response.status_code == 422
    assert any(problem in text for text in Page(response.text).text), response.text
    assert api.status_code == 422 and api.json()["detail"][0]["loc"] == ["query", "latest"]
