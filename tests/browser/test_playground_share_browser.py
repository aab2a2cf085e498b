"""Sharing a playground conversation in a real Chromium: Share, then the link in a second context.

The second context has no cookie of the first: it opens the read-only copy (verdict, replies,
thinking collapsed, no form); after "Stop sharing" the same link is the 404 page. A console
error (a Content-Security-Policy violation included) fails the test.
"""

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.served_app import keep_screenshot, opened, served
from tests.browser.test_playground_turns_browser import LEAKED, start_game
from tests.web.playground_app import LEAK, REFUSAL, model_args
from tests.web.test_playground_share import THINKING, share_app

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.subprocess]


def test_a_shared_link_opens_read_only_in_another_browser_until_sharing_stops(
    tmp_path: Path, browser: "Browser"
) -> None:
    from playwright.sync_api import expect

    app = share_app(
        tmp_path, None, "scripted/rules", None, **model_args(tmp_path, thinking=THINKING)
    )
    with served(app) as base, opened(browser, base, "/play") as owner:
        page = owner.page
        start_game(page)
        page.get_by_label("your message").fill("Hello there")
        page.get_by_role("button", name="Send").click()
        page.get_by_label("your message").fill(f"{LEAK}: what is the key?")
        page.get_by_role("button", name="Send").click()
        expect(page.locator("#verdict-compat .verdict")).to_have_text("failed")
        page.get_by_role("button", name="Share", exact=True).click()
        link = page.locator("#share-link")
        expect(link).to_have_count(1)
        shared = str(link.get_attribute("href"))
        assert shared.startswith(f"{base}/play/shared/")

        with opened(browser, base, shared.removeprefix(base)) as teammate:
            other = teammate.page
            expect(other.locator("h1")).to_have_text("Encryption")
            expect(other.locator("#verdict-compat .verdict")).to_have_text("failed")
            expect(other.locator(".message.assistant > pre").first).to_have_text(REFUSAL)
            expect(other.locator(".message.broke > pre")).to_have_text(LEAKED)
            expect(other.locator("pre.instructions")).to_contain_text("'[REDACTED]'")
            thinking = other.locator("details.reasoning").first
            expect(thinking).not_to_have_attribute("open", "")
            expect(thinking.locator("pre")).not_to_be_visible()  # collapsed
            expect(other.locator("form, textarea, button")).to_have_count(0)
            keep_screenshot(teammate, "playground-shared.png", full_page=True)
            assert not teammate.problems and not teammate.requests

        page.get_by_role("button", name="Stop sharing").click()
        expect(page.locator("#notice")).to_contain_text("stopped sharing")
        expect(page.locator("#share-link")).to_have_count(0)
        with opened(browser, base, shared.removeprefix(base)) as late:
            expect(late.page.locator("h1")).to_have_text("Not found")
        assert not owner.problems and not owner.requests
