"""The explorer over several stores: every store's runs, pages and search, read in place.

Stores are real: runs of scripted models and synthetic runs written by the store's writer;
where a figure must match, the reference is the same runs merged by `rulebench runs merge`.
"""

import shutil
import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.core.errors import StoreError
from rulebench.engine.store.merge import merge_stores
from rulebench.web.app import create_app

from tests.command import assert_one_line_error, rulebench
from tests.report.html_page import Page
from tests.web.explorer_store import BASE_URL, scenarios_run, synthetic_run


def explorer_of(*stores: Path) -> TestClient:
    return TestClient(create_app(list(stores)), base_url=BASE_URL)


@pytest.fixture
def apart(tmp_path: Path) -> tuple[Path, Path, str, str]:
    """A synthetic run of 5 items in one store and one of 7 in another."""
    first, second = tmp_path / "one.sqlite", tmp_path / "two.sqlite"
    return first, second, synthetic_run(first, 5), synthetic_run(second, 7, "scripted/other")


def runs_table(page: Page) -> list[list[str]]:
    [table] = [t for t in page.tables if t and t[0][:2] == ["id", "run"]]
    return table


def run_links(page: Page) -> list[str]:
    return [str(a["href"]) for a in page.tags("a") if str(a.get("href")).startswith("/runs/")]


def test_the_list_shows_each_stores_runs_and_names_the_store(
    apart: tuple[Path, Path, str, str],
) -> None:
    first, second, run_a, run_b = apart
    with explorer_of(first, second) as client:
        page = Page(client.get("/").text)
    [header, *rows] = runs_table(page)
    assert header[-1] == "store"
    stores = {row[0]: row[-1] for row in rows}
    assert stores == {run_a: str(first), run_b: str(second)}


def test_one_store_keeps_the_list_as_it_was(apart: tuple[Path, Path, str, str]) -> None:
    first, _, _, _ = apart
    with explorer_of(first) as client:
        [header, *_] = runs_table(Page(client.get("/").text))
    assert "store" not in header


@pytest.mark.parametrize("side", [0, 1])
def test_every_page_of_a_run_reads_its_own_store(
    apart: tuple[Path, Path, str, str], side: int
) -> None:
    stores, runs = apart[:2], apart[2:]
    run_id, count = runs[side], (5, 7)[side]
    with explorer_of(*stores) as client:
        run_page = client.get(f"/runs/{run_id}")
        item = client.get(f"/runs/{run_id}/items/item-000001")
        charts = client.get(f"/runs/{run_id}/charts")
        progress = client.get(f"/api/runs/{run_id}/progress").json()
    assert run_page.status_code == item.status_code == charts.status_code == 200
    assert f"store: <code>{stores[side]}</code>" in run_page.text
    assert "question 1" in item.text
    assert progress["counts"]["results"] == count


def test_comparing_runs_of_two_stores_equals_comparing_them_merged(tmp_path: Path) -> None:
    first, second, merged = (tmp_path / f"{name}.sqlite" for name in ("a", "b", "merged"))
    run_a, run_b = scenarios_run(first, "scripted/echo"), scenarios_run(second, "scripted/fixed")
    merge_stores([first, second], merged)
    query = f"a={run_a}&b={run_b}"
    with explorer_of(first, second) as client:
        numbers = client.get(f"/api/compare?{query}").json()
        page = Page(client.get(f"/compare?{query}&size=500").text)
    with explorer_of(merged) as client:
        expected = client.get(f"/api/compare?{query}").json()
        reference = Page(client.get(f"/compare?{query}&size=500").text)
    assert numbers == expected and numbers["pairs"] == 19
    side = ["item", "first", "answer", "reply or error", "second", "answer", "reply or error"]
    assert sorted(page.table_with(side)) == sorted(reference.table_with(side))


def hits(client: TestClient, query: str) -> list[str]:
    return [
        str(a["href"])
        for a in Page(client.get(query).text).tags("a")
        if "/items/" in str(a.get("href"))
    ]


def test_search_spans_the_stores_page_by_page(apart: tuple[Path, Path, str, str]) -> None:
    first, second, run_a, run_b = apart
    with explorer_of(first, second) as client:
        whole = hits(client, "/search?q=question&size=500")
        paged = [
            link
            for page in (1, 2, 3)
            for link in hits(client, f"/search?q=question&size=4&page={page}")
        ]
        only_b = hits(client, f"/search?q=question&run={run_b}&size=500")
    # Error items keep their question too: every item of both runs matches.
    assert len(whole) == 12 and paged == whole
    assert {link.split("/")[2] for link in whole} == {run_a, run_b}
    assert len(only_b) == 7 and {link.split("/")[2] for link in only_b} == {run_b}


def test_an_id_in_two_stores_is_one_run_when_the_content_is_the_same(
    tmp_path: Path, apart: tuple[Path, Path, str, str]
) -> None:
    first, second, run_a, _ = apart
    copy = tmp_path / "copy.sqlite"
    shutil.copy(first, copy)
    with explorer_of(first, second, copy) as client:
        listed = run_links(Page(client.get("/").text))
        assert client.get(f"/runs/{run_a}").status_code == 200
        found = hits(client, "/search?q=question&size=500")
        paged = [
            link
            for page in (1, 2, 3, 4)
            for link in hits(client, f"/search?q=question&size=4&page={page}")
        ]
    assert listed.count(f"/runs/{run_a}") == 1
    # Its items are found once, in the first store that holds it, page by page too.
    assert len(found) == len(set(found)) == 12 and paged == found


def test_an_id_in_two_stores_with_different_content_is_refused_at_the_start(
    tmp_path: Path, apart: tuple[Path, Path, str, str]
) -> None:
    first, _, run_a, _ = apart
    changed = tmp_path / "changed.sqlite"
    shutil.copy(first, changed)
    with sqlite3.connect(changed) as connection:
        connection.execute("UPDATE results SET reply = 'changed' WHERE rowid = 1")
    connection.close()
    with pytest.raises(StoreError, match=f"run {run_a} is in both") as raised:
        create_app([first, changed])
    assert str(first) in str(raised.value) and str(changed) in str(raised.value)


def test_a_missing_store_among_several_is_named(
    tmp_path: Path, apart: tuple[Path, Path, str, str]
) -> None:
    missing = tmp_path / "none.sqlite"
    with pytest.raises(StoreError, match="no results store at") as raised:
        create_app([apart[0], missing])
    assert str(missing) in str(raised.value) and not missing.exists()


def test_a_folder_stands_for_its_stores(tmp_path: Path, apart: tuple[Path, Path, str, str]) -> None:
    _, _, run_a, run_b = apart
    with explorer_of(tmp_path) as client:
        listed = run_links(Page(client.get("/").text))
    assert {f"/runs/{run_a}", f"/runs/{run_b}"} <= set(listed)


def test_shards_in_their_own_stores_are_runs_that_say_so(tmp_path: Path) -> None:
    stores = [tmp_path / f"shard{index}.sqlite" for index in (1, 2)]
    for index, store in enumerate(stores, 1):
        args = [
            "run",
            "smoke",
            "-m",
            "scripted/echo",
            "--store",
            str(store),
            "--shard",
            f"{index}/2",
        ]
        assert CliRunner().invoke(app, args).exit_code == 0
    with explorer_of(*stores) as client:
        runs = sorted(set(run_links(Page(client.get("/").text))))
        pages = [client.get(link).text for link in runs if link.count("/") == 2]
    assert len(pages) == 2
    for page in pages:
        assert "rulebench runs merge" in page
    assert sorted("shard 1/2" in page for page in pages) == [False, True]


@pytest.mark.subprocess
def test_serve_names_the_bad_store_among_several_in_one_line(
    tmp_path: Path, apart: tuple[Path, Path, str, str]
) -> None:
    first, second, _, _ = apart
    missing = tmp_path / "none.sqlite"
    result = rulebench("serve", "--store", str(first), "--store", str(missing))
    assert_one_line_error(result, "no results store at", str(missing))
    assert not missing.exists()
    changed = tmp_path / "changed.sqlite"
    shutil.copy(first, changed)
    with sqlite3.connect(changed) as connection:
        connection.execute("UPDATE runs SET model = 'another'")
    connection.close()
    result = rulebench(
        "serve", "--store", str(first), "--store", str(second), "--store", str(changed)
    )
    assert_one_line_error(result, "is in both", str(first), str(changed))
