"""The explorer's layout in a real Chromium, at a phone's width (375 px) and at a desktop's.

The page itself never scrolls sideways (a wide table scrolls inside its own box), the header's
links all show, and the runs list's label column stays readable. Console errors (a missing
favicon, a Content-Security-Policy violation) fail the test too.
"""

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.served_app import opened, served
from tests.web.explorer_store import scenarios_run
from tests.web.playground_app import SECRET, playground_app

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, pytest.mark.subprocess]

NAV_LINKS = ("Runs", "Compare", "Search", "Playground", "Saved cases", "Collected")
# A reply with no space to break at, and ids and labels as long as real ones.
LONG_REPLY = "x" * 400


def fits(page: "Page", where: str) -> None:
    """The page is no wider than the window, and every header link lies inside it."""
    width, scroll_width = page.evaluate(
        "() => [window.innerWidth, document.documentElement.scrollWidth]"
    )
    assert scroll_width <= width, f"{where}: the page is {scroll_width} px wide in {width}"
    nav = page.get_by_role("navigation", name="Explorer")
    for name in NAV_LINKS:
        link = nav.get_by_role("link", name=name, exact=True)
        box = link.bounding_box()
        assert link.is_visible() and box is not None, f"{where}: {name} is not shown"
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"{where}: {name} is cut"


@pytest.mark.parametrize("width", [375, 1280])
def test_pages_fit_the_window_with_the_nav_shown(
    tmp_path: Path, browser: "Browser", width: int
) -> None:
    run_id = scenarios_run(tmp_path / "s.sqlite", "scripted/fixed", reply=LONG_REPLY)
    scenarios_run(tmp_path / "s.sqlite", "scripted/echo")  # two runs: labels say something
    with served(playground_app(tmp_path)) as base, opened(browser, base, "/") as seen:
        page = seen.page
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(base + "/", wait_until="load")
        fits(page, "runs list")
        label_width = page.locator("table.runs td.run-label").first.evaluate(
            "cell => cell.getBoundingClientRect().width"
        )
        assert label_width >= 150, f"the label column is {label_width} px wide"

        page.goto(f"{base}/runs/{run_id}", wait_until="load")
        fits(page, "run page")
        item = page.locator("table.items tbody a[href*='/items/']").first
        item.click()
        page.wait_for_url(f"**/runs/{run_id}/items/**")
        fits(page, "item page")

        page.goto(base + "/play", wait_until="load")
        fits(page, "playground")
        page.get_by_label("scenario").select_option("Encryption")
        page.get_by_label("parameters").fill(json.dumps({"secret": SECRET}))
        page.get_by_role("button", name="Start").click()
        page.wait_for_url("**/play/conversations/*")
        page.get_by_label("your message").fill("Hello there " + LONG_REPLY)
        with page.expect_navigation(wait_until="load"):  # the reply's page, its CSS applied
            page.get_by_role("button", name="Send").click()
        page.locator(".message.user pre", has_text=LONG_REPLY).first.wait_for()
        page.locator(".message.assistant pre").last.wait_for()
        fits(page, "a conversation")
    assert seen.problems == [] and seen.requests == []
