"""Regression tests for the explorer's small defects (issue 26).

A page number past SQLite's 64-bit integers, a loadtest run's summary header, HEAD requests.
"""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import rulebench
from rulebench.web.app import create_app
from rulebench.web.security import SECURITY_HEADERS

from tests.report.html_page import Page
from tests.web.explorer_store import BASE_URL, explorer, synthetic_run

HUGE = 2**63


@pytest.mark.parametrize(
    "path",
    [
        f"/?page={HUGE}",
        f"/runs/{{run}}?page={HUGE}",
        f"/runs/{{run}}?page={HUGE * 10**6}",
        f"/compare?a={{run}}&b={{run}}&page={HUGE}",
        f"/runs/{{run}}?size={HUGE}",
    ],
)
def test_a_page_number_past_sqlites_integers_is_the_422_page_with_security_headers(
    tmp_path: Path, path: str
) -> None:
    store = tmp_path / "s.sqlite"
    run_id = synthetic_run(store, 3)
    client = TestClient(create_app(store), base_url=BASE_URL, raise_server_exceptions=False)
    with client:
        response = client.get(path.format(run=run_id))
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("text/html")
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value
    problem = "size" if "size=" in path else "page"
    assert any(
        text.startswith(f"this address does not fit the page: {problem}: ")
        for text in Page(response.text).text
    ), response.text


def test_the_last_page_that_fits_still_answers(tmp_path: Path) -> None:
    from rulebench.web.paging import MAX_PAGE

    store = tmp_path / "s.sqlite"
    run_id = synthetic_run(store, 3)
    with explorer(store) as client:
        response = client.get(f"/runs/{run_id}?page={MAX_PAGE}&size=500")
        over = client.get(f"/runs/{run_id}?page={MAX_PAGE + 1}")
    assert response.status_code == 200
    assert any(text.startswith("No items match") for text in Page(response.text).text)
    assert over.status_code == 422


def test_an_unexpected_failure_is_an_error_page_with_security_headers(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    synthetic_run(store, 3)
    app = create_app(store)

    @app.get("/boom")
    def boom() -> None:
        raise OverflowError("a bug")

    client = TestClient(app, base_url=BASE_URL, raise_server_exceptions=False)
    with client:
        response = client.get("/boom")
    assert response.status_code == 500
    for name, value in SECURITY_HEADERS.items():
        assert response.headers[name] == value
    assert "a bug" not in response.text  # internals stay in the server's log


def test_a_loadtest_runs_summary_names_its_one_row_not_none(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = rulebench.run("loadtest", "scripted/echo", config={"n": 4}, store=store).run.id
    with explorer(store) as client:
        page = Page(client.get(f"/runs/{run_id}").text)
    [summary] = [t for t in page.tables if t and "items" in t[0] and "errors" in t[0]]
    assert "None" not in summary[0]
    assert summary[0][0] == "group"
    assert summary[1][:2] == ["all", "4"]


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/runs/{run}",
        "/runs/{run}/items/item-000001",
        "/api/runs/{run}/progress",
        "/compare",
        "/static/web.css",
        "/play",
    ],
)
def test_head_answers_like_get_without_a_body(tmp_path: Path, path: str) -> None:
    store = tmp_path / "s.sqlite"
    run_id = synthetic_run(store, 3)
    url = path.format(run=run_id)
    with explorer(store) as client:
        got = client.get(url)
        head = client.head(url)
    assert got.status_code == 200
    assert head.status_code == 200, head.text
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.headers["content-security-policy"] == SECURITY_HEADERS["content-security-policy"]


def test_head_of_a_missing_page_is_a_404_not_a_405(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    synthetic_run(store, 3)
    with explorer(store) as client:
        response = client.head("/runs/nope")
    assert response.status_code == 404 and response.content == b""
