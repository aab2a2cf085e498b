"""A run's charts, an item's gold answer and the end of a followed run, in a real Chromium.

As in test_explorer_browser.py the app is served on loopback and the browser may reach its
origin only; a console error (a Content-Security-Policy violation: an inline style in a chart)
fails the test. Set RULEBENCH_SCREENSHOTS to keep explorer-charts.png (a scenario run's
charts) and explorer-report-charts.png (an inferential run's).
"""

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pydantic import JsonValue

import rulebench
from rulebench.engine.store.database import Store
from rulebench.report.build import scenarios_report
from rulebench.web.app import create_app

from tests.browser.served_app import keep_screenshot, opened, served
from tests.report.html_page import markdown_table
from tests.web.explorer_store import live_run, put_results

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.subprocess]

REDTEAM: dict[str, JsonValue] = {"suites": ["basic", "redteam"], "per_group": 1}


def test_browser_draws_a_runs_charts_and_shows_an_items_gold(
    tmp_path: Path, browser: "Browser"
) -> None:
    store = tmp_path / "s.sqlite"
    scenarios = rulebench.run("scenarios", "scripted/echo", config=REDTEAM, store=store).run.id
    config: dict[str, JsonValue] = {
        "tasks": ["kinship"],
        "per_group": 2,
        "grid": {"quantities": ["none", "golden", "all"], "forms": ["nl", "fol"]},
    }
    inferential = rulebench.run("inferential", "scripted/echo", config=config, store=store).run.id
    with Store(store, readonly=True) as db:
        markdown = scenarios_report(db, [scenarios]).markdown
        item = next(iter(db.iter_results(inferential)))
    by_scenario = {row[1]: row[2] for row in markdown_table(markdown, "By scenario")[1:]}
    with served(create_app(store)) as base, opened(browser, base, f"/runs/{scenarios}") as seen:
        page = seen.page
        page.get_by_role("link", name="Charts").click()
        page.wait_for_url(f"**/runs/{scenarios}/charts")
        figures = page.locator("figure.chart")
        assert figures.count() == 3
        chart = figures.first.locator("svg")
        box = chart.bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 40
        rows = chart.locator("g.row")
        shown = {
            str(rows.nth(i).get_attribute("data-label")): rows.nth(i)
            .locator("text.value")
            .text_content()
            for i in range(rows.count())
        }
        assert shown == by_scenario
        # Bars are painted by web.css (a class), not by an inline style the CSP would block.
        fill = chart.locator("rect.bar").first.evaluate("bar => getComputedStyle(bar).fill")
        assert fill == "rgb(76, 120, 168)"
        keep_screenshot(seen, "explorer-charts.png", full_page=True)

        page.goto(f"{base}/runs/{inferential}/charts")
        svgs = page.locator("figure.chart svg")
        assert svgs.count() == 2
        for index in range(2):
            drawn = svgs.nth(index).bounding_box()
            assert drawn is not None and drawn["width"] > 100 and drawn["height"] > 100
        keep_screenshot(seen, "explorer-report-charts.png", full_page=True)

        page.goto(f"{base}/runs/{inferential}/items/{item.item_id}")
        gold = page.locator("#gold")
        assert gold.is_visible()  # on the page, not folded away in the metadata
        assert gold.inner_text() == item.metadata["gold"]
        modes = page.locator("table.extractions tbody tr td:first-child").all_inner_texts()
        assert modes == ["paper", "robust (scored)"]
        assert page.locator("table.extractions").is_visible()
        assert seen.requests == [] and seen.problems == []


def test_browser_shows_the_final_state_of_a_run_that_completes(
    tmp_path: Path, browser: "Browser"
) -> None:
    from playwright.sync_api import expect

    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run, writer = live_run(db, 3)
        with served(create_app(store)) as base, opened(browser, base, f"/runs/{run.id}") as seen:
            page = seen.page
            total = page.locator("[data-summary] tr:last-child td")
            assert total.all_inner_texts()[:2] == ["all", "3"]
            assert page.locator(".live-badge").is_visible()
            page.evaluate("window.__sameDocument = true")
            put_results(writer, run.id, range(3, 30))
            writer.flush()
            # The summary follows the run, not only the counts above it.
            expect(total.nth(1)).to_have_text("30")
            assert page.locator("[data-count='results']").inner_text() == "30"
            writer.close()
            db.finish_run(run.id, "completed", {})
            expect(page.locator("[data-live-status]")).to_have_text("completed")
            expect(page.locator(".live-badge")).to_have_count(0)
            assert page.get_by_text("This run is in progress").count() == 0
            assert page.get_by_text("This run has ended").is_visible()
            assert page.locator("[data-live-ended]").inner_text() != "-"
            assert total.all_inner_texts()[:2] == ["all", "30"]
            assert page.evaluate("window.__sameDocument") is True  # never reloaded
            assert seen.requests == [] and seen.problems == []


def test_browser_shows_a_killed_run_as_ended(tmp_path: Path, browser: "Browser") -> None:
    from playwright.sync_api import expect

    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run, writer = live_run(db, 5)
        writer.close()
    with served(create_app(store)) as base, opened(browser, base, f"/runs/{run.id}") as seen:
        page = seen.page
        assert page.locator("[data-live-status]").inner_text() == "running"
        # Its process dies without a word: the store still says "running", the pid is gone.
        with sqlite3.connect(store) as connection:
            connection.execute("UPDATE runs SET pid = 2147483646 WHERE id = ?", (run.id,))
        connection.close()
        expect(page.locator("[data-live-status]")).to_have_text("killed")
        expect(page.locator(".live-badge")).to_have_count(0)
        assert page.get_by_text("This run is in progress").count() == 0
        assert page.get_by_text("This run has ended").is_visible()
        assert page.locator("[data-summary] tr:last-child td").all_inner_texts()[:2] == [
            "all",
            "5",
        ]
        assert seen.requests == [] and seen.problems == []
