"""The explorer's small things: its own 404 page, a favicon, verdict words, counts with commas."""

import re
from pathlib import Path

from rulebench.core.cases import TestCase
from rulebench.scenarios import played
from rulebench.scenarios.suites import slots
from rulebench.web.playground import collected_page
from rulebench.web.templating import thousands

from tests.report.html_page import Page
from tests.web.explorer_store import explorer, synthetic_result, synthetic_run

VERDICT_HEADER = ["run", "item", "verdict", "match"]


def test_an_unknown_page_is_the_sites_html_404_while_api_paths_keep_json(
    tmp_path: Path,
) -> None:
    store = tmp_path / "s.sqlite"
    synthetic_run(store, 2)
    with explorer(store) as client:
        page = client.get("/no/such/<page>")
        api = client.get("/api/no-such-thing")
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    assert 'href="/play"' in page.text and "<header" in page.text  # the site's layout
    assert "no page of the explorer at /no/such/&lt;page&gt;" in page.text  # as text
    assert "<page>" not in page.text
    assert "content-security-policy" in page.headers
    assert api.status_code == 404
    assert api.headers["content-type"] == "application/json"
    assert api.json() == {"detail": "Not Found"}


def test_the_favicon_is_served_locally_and_every_page_names_it(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    synthetic_run(store, 2)
    with explorer(store) as client:
        icon = client.get("/static/favicon.svg")
        fallback = client.get("/favicon.ico")
        page = client.get("/").text
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"
    assert icon.content.startswith(b"<svg") and fallback.content == icon.content
    assert "max-age" in icon.headers["cache-control"]  # asked once per server, not per page
    [link] = [tag for tag in Page(page).tags("link") if tag.get("rel") == "icon"]
    assert link["href"] == "/static/favicon.svg"


def test_search_hits_say_passed_failed_or_error(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run = synthetic_run(store, 14)  # every 3rd failed, every 7th an error
    with explorer(store) as client:
        page = client.get("/search", params={"q": "question", "run": run, "size": 50}).text
    table = Page(page).table_with(VERDICT_HEADER)[1:]
    found = {row[1]: row[2] for row in table}
    expected = {}
    for index in range(14):
        outcome = synthetic_result(index).outcome
        label = "error" if outcome is None else ("passed" if outcome.passed else "failed")
        expected[f"item-{index:06d}"] = label
    assert found == expected
    assert {"passed", "failed", "error"} == set(found.values())


def test_counts_have_thousands_separators(tmp_path: Path) -> None:
    assert [thousands(1234567), thousands(999), thousands("-"), thousands(True)] == [
        "1,234,567",
        "999",
        "-",
        "True",
    ]
    store = tmp_path / "s.sqlite"
    run = synthetic_run(store, 1200)
    with explorer(store) as client:
        page = client.get(f"/runs/{run}").text
        progress = client.get(f"/api/runs/{run}/progress").json()
    assert re.search(r'data-count="results">1,200<', page)
    assert "of 1,200" in page  # the sample table's pager
    assert progress["summary"][-1]["count"] == "1,200"  # the live page shows the same


def test_an_items_passed_field_reads_yes_or_no(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run = synthetic_run(store, 2)  # item 0 failed, item 1 passed
    with explorer(store) as client:
        failed = client.get(f"/runs/{run}/items/item-000000").text
        passed = client.get(f"/runs/{run}/items/item-000001").text
    assert "<dt>passed</dt><dd>no</dd>" in failed and "<dt>passed</dt><dd>yes</dd>" in passed
    assert "False" not in failed and "True" not in passed


def test_strategies_are_spelled_as_upstreams_categories_everywhere() -> None:
    assert played.STRATEGIES == slots.STRATEGIES
    assert "Just Ask" in played.STRATEGIES and "Rule Change" in played.STRATEGIES
    for category, shown in (("just ask", "Just Ask"), ("Rule change", "Rule Change")):
        case = TestCase.model_validate(
            {
                "id": "c",
                "scenario": "Encryption",
                "behavior": "Encryption",
                "category": category,
                "params": {},
                "messages": [{"role": "user", "content": "hi"}],
            }
        )
        assert collected_page.facts(case)["strategy"] == shown
