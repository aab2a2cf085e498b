"""The runs list sorted by a click on its score header, and search, in a real Chromium."""

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pydantic import JsonValue

import rulebench
from rulebench.web.app import create_app

from tests.browser.served_app import opened, served

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.subprocess]

BOTH_SUITES: dict[str, JsonValue] = {"suites": ["basic", "redteam"], "per_group": 1}
KINSHIP: dict[str, JsonValue] = {"tasks": ["kinship"], "per_group": 12}


def test_clicking_the_score_header_sorts_every_run_by_score(
    tmp_path: Path, browser: "Browser"
) -> None:
    store = tmp_path / "s.sqlite"
    rulebench.run(
        "scenarios",
        "scripted/fixed",
        config=BOTH_SUITES,
        store=store,
        model_args={"reply": "I cannot help with that."},
    )
    rulebench.run("scenarios", "scripted/echo", config=BOTH_SUITES, store=store)
    rulebench.run("inferential", "scripted/echo", config=KINSHIP, store=store)
    with served(create_app(store)) as base, opened(browser, base, "/") as seen:
        page = seen.page
        scores = page.locator("table.runs tbody tr td:nth-child(4)")
        before = [float(text) for text in scores.all_inner_texts()]
        page.locator("th a[data-sort=score]").click()
        page.wait_for_url("**/?sort=score&order=desc")
        descending = [float(text) for text in scores.all_inner_texts()]
        page.locator("th a[data-sort=score]").click()
        page.wait_for_url("**/?sort=score&order=asc")
        ascending = [float(text) for text in scores.all_inner_texts()]
        header = page.locator("th[aria-sort]")
        assert header.get_attribute("aria-sort") == "ascending"
        assert header.inner_text().startswith("score")
    assert before != descending  # newest first was not already the score order
    assert descending == sorted(before, reverse=True) and len(set(before)) == 3
    assert ascending == descending[::-1]
    assert not seen.problems and not seen.requests


def test_search_finds_a_replys_text_and_opens_its_item(tmp_path: Path, browser: "Browser") -> None:
    store = tmp_path / "s.sqlite"
    reply = "The quokka smiles at <b>everyone</b> & waves."
    run_id = rulebench.run(
        "scenarios", "scripted/fixed", config=BOTH_SUITES, store=store, model_args={"reply": reply}
    ).run.id
    rulebench.run("scenarios", "scripted/echo", config=BOTH_SUITES, store=store)
    with served(create_app(store)) as base, opened(browser, base, "/") as seen:
        page = seen.page
        page.get_by_role("navigation", name="Explorer").get_by_role("link", name="Search").click()
        page.wait_for_url("**/search")
        page.get_by_label("find").fill("quokka")
        page.get_by_role("button", name="Search").click()
        page.wait_for_url("**/search?q=quokka")
        hits = page.locator("table.search-hits tbody tr")
        assert hits.count() > 0
        assert set(hits.locator("td:nth-child(1)").all_inner_texts()) == {run_id}
        assert set(page.locator("mark").all_inner_texts()) == {"quokka"}
        assert "<b>everyone</b>" in hits.first.inner_text()  # text, not markup
        hits.first.locator("td:nth-child(2) a").click()
        page.wait_for_url(f"**/runs/{run_id}/items/**")
        assert "The quokka smiles" in page.locator("main").inner_text()
        assert not seen.problems
        page.goto(f"{base}/search?q=%22unclosed")
        assert "cannot read the query" in page.locator("p.problem").inner_text()
    assert len(seen.problems) == 1 and "status of 400" in seen.problems[0]  # the bad query's
    assert not seen.requests
