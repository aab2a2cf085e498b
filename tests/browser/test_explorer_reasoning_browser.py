"""An item's thinking in a real Chromium: collapsed above the answer, opened by a click."""

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from rulebench.web.app import create_app

from tests.browser.served_app import opened, served
from tests.web.thinking_store import EARLY_THOUGHT, thinking_run

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.subprocess]


def test_browser_shows_thinking_collapsed_and_opens_it_on_a_click(
    tmp_path: Path, browser: "Browser"
) -> None:
    store = tmp_path / "s.sqlite"
    run_id = thinking_run(store)
    with (
        served(create_app(store)) as base,
        opened(browser, base, f"/runs/{run_id}/items/thought") as seen,
    ):
        page = seen.page
        blocks = page.locator("details.reasoning")
        assert blocks.count() == 2
        early = blocks.first
        body = early.locator("pre")
        assert early.evaluate("e => e.open") is False and not body.is_visible()
        answer = page.locator(".message pre:not(details pre)").nth(1)  # the earlier "blue"
        assert answer.is_visible() and answer.text_content() == "blue"
        summary_box, answer_box = early.locator("summary").bounding_box(), answer.bounding_box()
        assert summary_box is not None and answer_box is not None
        assert summary_box["y"] < answer_box["y"]  # above its answer
        early.locator("summary").click()
        assert early.evaluate("e => e.open") is True
        assert body.is_visible() and body.text_content() == EARLY_THOUGHT
        last = blocks.nth(1)
        last.locator("summary").click()
        assert last.locator("pre").is_visible()
        assert page.evaluate("typeof window.__pwned") == "undefined"  # hostile thinking is text
        assert page.locator("img, iframe, object, embed").count() == 0
        assert seen.requests == [] and seen.problems == []
