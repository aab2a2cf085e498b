"""Outside text stays text, secrets stay out, and only the app's own pages may change state.

Replies and data hold `<script>`, attributes and Markdown links; pages are parsed as a
browser parses them, so "escaped" means no element, attribute or link was made.
"""

import sqlite3
from pathlib import Path
from typing import NamedTuple

import pytest
from fastapi.testclient import TestClient

from rulebench.engine.store.database import Store
from rulebench.web.app import create_app
from rulebench.web.security import CONTENT_SECURITY_POLICY, allowed_hosts, is_loopback

from tests.report.html_page import Page
from tests.web.explorer_page import items_of
from tests.web.explorer_store import (
    BASE_URL,
    HOSTILE,
    explorer,
    scenarios_run,
    synthetic_result,
)

SHOWN = HOSTILE.replace("\x1b", "\\x1b")  # a control character is shown as its escape
SECRETS = ("sk-secret123", "hunter2", "u-7f3q", "tok-qs", "tok-abc", "bob", "pw-77", "k-err9")


def assert_inert(html: str) -> Page:
    """Nothing on the page runs or links out: no script but the app's own, no handler, no URL."""
    page = Page(html)
    assert page.tags("img") == [] and page.tags("iframe") == []
    scripts = {attrs.get("src") for attrs in page.tags("script")}
    assert scripts <= {"/static/live.js", "/static/item-keys.js"}
    assert not any(name.startswith("on") for _, attrs in page.elements for name in attrs)
    links = page.attribute_values("href")
    assert all(link.startswith(("/", "#")) for link in links), links
    assert "\x1b" not in html
    return page


def test_a_hostile_reply_is_text_on_every_page_that_shows_it(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = scenarios_run(store, "scripted/fixed", reply=HOSTILE)
    other = scenarios_run(store, "scripted/echo")
    with Store(store, readonly=True) as db:
        item_id = next(iter(db.iter_results(run_id))).item_id
    with explorer(store) as client:
        item_html = client.get(f"/runs/{run_id}/items/{item_id}").text
        item = assert_inert(item_html)
        listing = assert_inert(client.get(f"/runs/{run_id}").text)
        compared = assert_inert(client.get(f"/compare?a={run_id}&b={other}").text)
        progress = client.get(f"/api/runs/{run_id}/progress")
    assert SHOWN in item.text  # the raw reply, whole and literal, in its own text node
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;&lt;img src=x onerror=" in item_html
    assert any(text.startswith("<script>window.__pwned=1") for text in listing.text)
    assert any(text.startswith("<script>window.__pwned=1") for text in compared.text)
    assert progress.headers["content-type"] == "application/json"
    assert progress.json()["latest"][0]["reply"].startswith("<script>")  # JSON, set as text


def test_hostile_run_ids_models_and_metadata_stay_text(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    label = '"><script>alert(1)</script><a href="http://evil.example">x</a>'
    with Store(store) as db:
        run = db.create_run("scenarios", f"scripted/{label}", {"note": label})
        writer = db.writer()
        result = synthetic_result(1).model_copy(
            update={"item_id": label, "metadata": {"scenario": label, "repeat": 0}}
        )
        writer.put_result(run.id, result)
        writer.close()
        db.finish_run(run.id, "completed", {})
    with explorer(store) as client:
        for url in ("/", f"/runs/{run.id}", f"/runs/{run.id}?scenario={label}"):
            response = client.get(url)
            assert response.status_code == 200, url
            page = assert_inert(response.text)
            # The item's link holds the id percent-encoded in the app's own path, never a URL.
            assert all("://" not in str(a.get("href")) for a in page.tags("a"))
        [row] = items_of(Page(client.get(f"/runs/{run.id}").text))
        assert row["item"] == label
        [href] = [
            str(a["href"])
            for a in Page(client.get(f"/runs/{run.id}").text).tags("a")
            if str(a.get("href", "")).startswith(f"/runs/{run.id}/items/")
        ]
        item = client.get(href)
    assert item.status_code == 200  # the percent-encoded id finds the item again
    assert label in Page(item.text).text


def test_secrets_in_configs_notes_and_errors_never_reach_a_page(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    plain = scenarios_run(store, "scripted/echo")
    with Store(store) as db:
        # A config as another writer or an older version might have stored it.
        config = db.get_run(plain).config | {
            "model_args": {"api_key": "sk-secret123", "timeout_s": "60"},
            "base_url": "https://u-7f3q:hunter2@llm.example/v1?token=tok-qs",
            "headers": ["Authorization: Bearer tok-abc"],
        }
        leaky = db.create_run("scenarios", "openai-api/vllm/m", config)
        writer = db.writer()
        for index, result in enumerate(db.iter_results(plain)):
            if index == 0:  # an error quoting the endpoint with its credentials
                result = result.model_copy(
                    update={"outcome": None, "error": "POST http://x:k-err9@10.0.0.1/v1: 500"}
                )
            writer.put_result(leaky.id, result)
        writer.close()
        db.finish_run(leaky.id, "completed", {"endpoint": "http://bob:pw-77@10.0.0.1:8000"})
        first = next(iter(db.iter_results(leaky.id))).item_id
    with explorer(store) as client:
        pages = [
            client.get(url).text
            for url in (
                "/",
                f"/runs/{leaky.id}",
                f"/runs/{leaky.id}?verdict=error",
                f"/runs/{leaky.id}/items/{first}",
                f"/compare?a={leaky.id}&b={plain}",
                f"/api/runs/{leaky.id}/progress",
            )
        ]
    for html in pages:
        for secret in SECRETS:
            assert secret not in html, secret
    run_page = pages[1]
    assert "https://***@llm.example/v1?token=***" in run_page and "Bearer ***" in run_page
    assert "&#34;timeout_s&#34;: &#34;60&#34;" in run_page  # settings stay visible
    assert "POST http://***@10.0.0.1/v1: 500" in pages[3]


def test_every_response_carries_a_strict_content_security_policy(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = scenarios_run(store, "scripted/echo")
    with explorer(store) as client:
        for url in ("/", f"/runs/{run_id}", "/compare", "/static/live.js", "/runs/nope"):
            response = client.get(url)
            assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
            assert response.headers["x-content-type-options"] == "nosniff"
            assert response.headers["x-frame-options"] == "DENY"
        assert client.get("/static/../../pyproject.toml").status_code == 404
        assert client.get("/static/app.py").status_code == 404
    assert "script-src 'self'" in CONTENT_SECURITY_POLICY
    assert "unsafe-inline" not in CONTENT_SECURITY_POLICY


def test_pages_link_only_to_files_the_app_serves_itself(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = scenarios_run(store, "scripted/echo")
    with explorer(store) as client:
        page = Page(client.get(f"/runs/{run_id}").text)
        sheets = [str(a["href"]) for a in page.tags("link") if a.get("rel") == "stylesheet"]
        assert sheets == ["/static/report.css", "/static/web.css", "/static/item-nav.css"]
        for sheet in sheets:
            response = client.get(sheet)
            assert response.status_code == 200 and "text/css" in response.headers["content-type"]
            assert "http" not in response.text and "@import" not in response.text


class Guarded(NamedTuple):
    client: TestClient
    changes: list[str]
    """What the state-changing route did."""


@pytest.fixture
def guarded(tmp_path: Path) -> Guarded:
    """The app with a state-changing route of its own: the guard tested apart from play."""
    store = tmp_path / "s.sqlite"
    scenarios_run(store, "scripted/echo")
    app = create_app(store)
    changed: list[str] = []

    @app.post("/test-save")
    def save() -> dict[str, int]:
        changed.append("saved")
        return {"saved": len(changed)}

    return Guarded(TestClient(app, base_url=BASE_URL), changed)


@pytest.mark.parametrize(
    "headers",
    [
        {},  # no proof of origin: a script or an old browser
        {"Origin": "http://evil.example"},
        {"Origin": "http://127.0.0.1:9999"},  # another local page: same site, other origin
        {"Sec-Fetch-Site": "cross-site", "Origin": "http://evil.example"},
        {"Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1:9999"},
        {"Sec-Fetch-Site": "none"},
        {"Origin": "null"},
    ],
)
def test_a_cross_site_state_change_is_refused(guarded: Guarded, headers: dict[str, str]) -> None:
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        response = guarded.client.request(method, "/test-save", headers=headers)
        assert response.status_code == 403, (method, headers)
        assert "did not come from one of this app's own pages" in response.text
    assert guarded.changes == []


@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-Fetch-Site": "same-origin", "Origin": BASE_URL},
        {"Origin": BASE_URL},  # a browser without Sec-Fetch-* headers
    ],
)
def test_a_state_change_from_the_apps_own_page_goes_through(
    guarded: Guarded, headers: dict[str, str]
) -> None:
    response = guarded.client.post("/test-save", headers=headers)
    assert response.status_code == 200 and response.json() == {"saved": 1}
    assert guarded.changes == ["saved"]


def test_a_request_for_another_host_name_is_refused(tmp_path: Path) -> None:
    """DNS rebinding: evil.example resolving to 127.0.0.1 must not read the store."""
    store = tmp_path / "s.sqlite"
    scenarios_run(store, "scripted/echo")
    with explorer(store) as client:
        assert client.get("/", headers={"Host": "evil.example:8765"}).status_code == 400
        for host in ("localhost:8765", "127.0.0.1:8765", "[::1]:8765"):
            assert client.get("/", headers={"Host": host}).status_code == 200, host
    anywhere = TestClient(create_app(store, allowed_hosts("0.0.0.0")), base_url=BASE_URL)
    assert anywhere.get("/", headers={"Host": "box.lan:8765"}).status_code == 200


def test_loopback_is_told_from_addresses_other_machines_reach() -> None:
    assert all(map(is_loopback, ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"]))
    assert not any(map(is_loopback, ["0.0.0.0", "::", "192.168.1.5", "box.lan", ""]))


def test_the_explorer_never_writes_to_the_store(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = scenarios_run(store, "scripted/echo")
    with sqlite3.connect(store) as db:
        before = db.execute("SELECT COUNT(*), MAX(rowid) FROM results").fetchone()
    db.close()
    store.chmod(0o444)  # a store on read-only media still opens
    try:
        with explorer(store) as client:
            for url in ("/", f"/runs/{run_id}", f"/api/runs/{run_id}/progress"):
                assert client.get(url).status_code == 200
    finally:
        store.chmod(0o644)
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*), MAX(rowid) FROM results").fetchone() == before
    db.close()
