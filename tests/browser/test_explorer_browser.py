"""The explorer in a real Chromium: served by uvicorn, filtered, an item opened, a run followed.

The app runs in a thread of the test process on a free loopback port; the browser may reach
that origin only (anything else is aborted and recorded), so the pages are seen working
offline. Console errors include Content-Security-Policy violations: a page that broke its
own policy (an inline script or style) fails here.
Set RULEBENCH_SCREENSHOTS to a folder to keep explorer.png (an item) and explorer-run.png
(a run's filtered items) for the README.
"""

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import rulebench
from rulebench.engine.store.database import Store
from rulebench.report.build import scenarios_report
from rulebench.web.app import create_app

from tests.browser.served_app import keep_screenshot, opened, served
from tests.web.explorer_store import SCENARIOS, live_run, put_results

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.subprocess]

HOSTILE = (
    '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> '
    '" onmouseover="window.__pwned=3" [link](http://evil.example)'
)


def test_browser_filters_runs_and_items_and_opens_a_hostile_item_as_text(
    tmp_path: Path, browser: "Browser"
) -> None:
    store = tmp_path / "s.sqlite"
    echo = rulebench.run("scenarios", "scripted/echo", config=SCENARIOS, store=store).run.id
    hostile = rulebench.run(
        "scenarios", "scripted/fixed", config=SCENARIOS, store=store, model_args={"reply": HOSTILE}
    ).run.id
    with served(create_app(store)) as base, opened(browser, base, "/") as seen:
        page = seen.page
        runs = page.locator("table.runs tbody tr")
        assert runs.count() == 2
        page.get_by_label("model").fill("fixed")
        page.get_by_role("button", name="Filter").click()
        page.wait_for_url("**/?task=&model=fixed&status=&q=")
        assert runs.count() == 1 and echo not in runs.inner_text()
        page.get_by_role("link", name=hostile).click()
        page.wait_for_url(f"**/runs/{hostile}")

        page.get_by_label("verdict").select_option("failed")
        page.get_by_role("button", name="Filter").click()
        page.wait_for_url(f"**/runs/{hostile}?verdict=failed**")
        items = page.locator("table.items tbody tr")
        assert items.count() > 0
        verdicts = items.locator("td:nth-child(2)").all_inner_texts()
        assert set(verdicts) == {"failed"}
        replies = items.locator("td.reply").all_text_contents()
        assert len(replies) == items.count()
        assert all(reply.startswith("<script>") for reply in replies)
        keep_screenshot(seen, "explorer-run.png")
        filtered = page.url
        page.reload()  # the filtered list survives a reload: its state is in the URL
        assert page.url == filtered
        assert items.locator("td:nth-child(2)").all_inner_texts() == verdicts

        items.first.locator("a").click()
        page.wait_for_url(f"**/runs/{hostile}/items/**")
        reply = page.locator("pre#reply")
        assert reply.is_visible() and reply.text_content() == HOSTILE
        reply.hover()
        reply.click()
        keep_screenshot(seen, "explorer.png")
        assert page.evaluate("typeof window.__pwned") == "undefined"
        # No element but the app's own keys script: the reply made none.
        own = "script:not([src='/static/item-keys.js'])"
        assert page.locator(f"{own}, img, iframe, object, embed").count() == 0
        assert page.locator("a[href*='evil'], a[href^='http'], a[href^='javascript']").count() == 0
        assert seen.requests == [] and seen.problems == []


def test_browser_follows_a_running_run_without_reloading(
    tmp_path: Path, browser: "Browser"
) -> None:
    from playwright.sync_api import expect

    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run, writer = live_run(db, 3)
        db.note_total(run.id, 100)
        with served(create_app(store)) as base, opened(browser, base, f"/runs/{run.id}") as seen:
            page = seen.page
            results = page.locator("[data-count='results']")
            assert results.inner_text() == "3"
            page.evaluate("window.__sameDocument = true")
            put_results(writer, run.id, range(3, 12))
            writer.flush()
            # expect() polls from outside the page: the page's CSP refuses eval'd predicates.
            expect(results).to_have_text("12")
            latest = page.locator("[data-latest] li code").all_inner_texts()
            assert latest == [f"item-{i:06d}" for i in range(11, 1, -1)]  # newest first, 10
            assert page.locator("[data-count='error']").inner_text() == "1"
            expect(page.locator("[data-live-items]")).to_have_text("12 of 100")
            expect(page.locator("[data-live-eta]")).to_contain_text("about ")  # 12 in a moment
            writer.close()
            db.finish_run(run.id, "completed", {})
            expect(page.locator("[data-live-status]")).to_have_text("completed")
            expect(page.locator("[data-live-eta-line]")).to_have_count(0)  # ended: no ETA
            assert page.evaluate("window.__sameDocument") is True  # updated, never reloaded
            assert seen.requests == [] and seen.problems == []


def test_browser_compares_two_runs_with_the_reports_mcnemar(
    tmp_path: Path, browser: "Browser"
) -> None:
    store = tmp_path / "s.sqlite"
    first = rulebench.run("scenarios", "scripted/echo", config=SCENARIOS, store=store).run.id
    second = rulebench.run("scenarios", "scripted/fixed", config=SCENARIOS, store=store).run.id
    with Store(store, readonly=True) as db:
        expected = scenarios_report(db, [first, second]).numbers["comparisons"]
    assert isinstance(expected, list) and len(expected) == 1
    numbers = expected[0]
    assert isinstance(numbers, dict)
    with served(create_app(store)) as base, opened(browser, base, "/compare") as seen:
        page = seen.page
        page.locator("select[name=a]").select_option(first)
        page.locator("select[name=b]").select_option(second)
        page.get_by_role("button", name="Compare").click()
        page.wait_for_url(f"**/compare?a={first}&b={second}**")
        cells = page.locator("table.paired tbody td").all_inner_texts()
        assert cells[:3] == [
            str(numbers["pairs"]),
            str(numbers["only_first_passed"]),
            str(numbers["only_second_passed"]),
        ]
        assert float(page.locator("[data-p-value]").inner_text()) == pytest.approx(
            float(str(numbers["p_value"])), abs=5e-5
        )
        rows = page.locator("table.pairs tbody tr")
        assert rows.count() > 0
        page.reload()  # the comparison is in the URL
        assert page.locator("table.paired tbody td").all_inner_texts()[:3] == cells[:3]
        assert seen.requests == [] and seen.problems == []
