"""A server others reach (`show_paths=False`) names files by name only on every explorer page."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import JsonValue

import rulebench
from rulebench.testing.older_store import drop_search_index
from rulebench.web.app import create_app

from tests.web.explorer_store import BASE_URL, scenarios_run, synthetic_run

KINSHIP: dict[str, JsonValue] = {"tasks": ["kinship"], "per_group": 2}


def remote(store: Path) -> TestClient:
    return TestClient(create_app(store, show_paths=False), base_url=BASE_URL)


def pages(first: str, second: str, item: str) -> list[str]:
    """Every explorer page and JSON answer of two runs, and its error pages."""
    return [
        "/",
        "/?sort=score",
        "/?sort=cost",
        f"/runs/{first}",
        f"/runs/{first}/items/{item}",
        f"/runs/{first}/charts",
        f"/runs/{second}/charts",
        "/search?q=reply",
        f"/search?q=reply&run={first}",
        '/search?q="unclosed',
        f"/compare?a={first}&b={second}",
        f"/api/compare?a={first}&b={second}",
        f"/api/runs/{first}/progress",
        "/runs/no-such-run",
        f"/runs/{first}/items/no-such-item",
        "/?page=0",
        f"/runs/{first}?page={2**63}",
        "/no-such-page",
    ]


def test_no_page_of_a_remote_explorer_shows_a_server_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.sqlite"
    first = scenarios_run(store, "scripted/echo")
    second = rulebench.run("inferential", "scripted/echo", config=KINSHIP, store=store).run.id
    # A price table that cannot be read: the runs list says why, naming the file.
    broken = tmp_path / "prices.toml"
    broken.write_text("not [toml", encoding="utf-8")
    monkeypatch.setenv("RULEBENCH_PRICES", str(broken))
    with remote(store) as client:
        item = client.get(f"/runs/{first}").text.split("/items/")[1].split('"')[0]
        answers = {url: client.get(url) for url in pages(first, second, item)}
    assert "costs left out" in answers["/"].text
    assert answers["/runs/no-such-run"].status_code == 404
    for url, answer in answers.items():
        assert str(tmp_path) not in answer.text, url
        assert store.name in answer.text or url.startswith(("/api/", "/no-such")), url


def test_a_remote_unindexed_store_names_itself_by_name_in_the_search_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.sqlite"
    synthetic_run(store, 5)
    drop_search_index(store)
    monkeypatch.setattr(
        "rulebench.engine.store.connection.os.access", lambda *_: False
    )  # read-only media
    with remote(store) as client:
        search = client.get("/search", params={"q": "reply"})
    assert search.status_code == 503
    assert "s.sqlite has no search index yet" in search.text
    assert str(tmp_path) not in search.text


def test_a_remote_store_that_fails_under_the_server_is_named_by_name(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = synthetic_run(store, 3)
    with remote(store) as client:
        store.write_bytes(b"not a database at all" * 100)  # replaced while served
        answers = [client.get(url) for url in ("/", f"/runs/{run_id}", "/search?q=x")]
    for answer in answers:
        assert answer.status_code >= 500
        assert str(tmp_path) not in answer.text
