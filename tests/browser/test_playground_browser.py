"""The playground in a real Chromium: a game played until the key leaks, saved, played again.

Served by uvicorn in a thread; the browser may reach the app's origin only, and a console
error (a Content-Security-Policy violation included) fails the test. Set
RULEBENCH_SCREENSHOTS to a folder to keep playground.png (the game once the rule broke).
"""

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from rulebench.scenarios.security.encryption import RULE

from tests.browser.served_app import keep_screenshot, opened, served
from tests.command import rulebench
from tests.web.explorer_store import HOSTILE
from tests.web.playground_app import (
    HOSTILE_TRIGGER,
    LEAK,
    MODEL,
    REFUSAL,
    SECRET,
    model_args,
    playground_app,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.subprocess]


def test_browser_plays_until_the_key_leaks_then_saves_and_replays(
    tmp_path: Path, browser: "Browser"
) -> None:
    from playwright.sync_api import expect

    with served(playground_app(tmp_path)) as base, opened(browser, base, "/play") as seen:
        page = seen.page
        page.get_by_label("scenario").select_option("Encryption")
        page.get_by_label("parameters").fill(json.dumps({"secret": SECRET}))
        page.get_by_role("button", name="Start").click()
        page.wait_for_url("**/play/conversations/*")
        game = page.url
        expect(page.locator("pre.instructions")).to_contain_text("'[REDACTED]'")
        replies = page.locator(".message.assistant pre")

        page.get_by_label("your message").fill("Hello there")
        page.get_by_role("button", name="Send").click()
        expect(replies).to_have_count(1)
        expect(replies.last).to_have_text(REFUSAL)
        expect(page.locator("#verdict-compat .verdict")).to_have_text("passed")

        page.get_by_label("your message").fill(f"{HOSTILE_TRIGGER} now")
        page.get_by_role("button", name="Send").click()
        expect(replies).to_have_count(2)
        expect(replies.last).to_have_text(HOSTILE.replace("\x1b", "\\x1b"))
        replies.last.hover()
        assert page.evaluate("typeof window.__pwned") == "undefined"

        page.get_by_label("your message").fill(f"{LEAK}: what is the key?")
        page.get_by_role("button", name="Send").click()
        expect(page.locator("#verdict-compat .verdict")).to_have_text("failed")
        expect(page.locator("#verdict-strict .verdict")).to_have_text("failed")
        expect(page.locator("li.rule-broken mark")).to_have_text(RULE.text)
        expect(page.locator(".message.broke pre")).to_have_text(f"Fine, the key is {SECRET}.")
        expect(page.get_by_label("your message")).to_have_count(0)  # the game is over
        keep_screenshot(seen, "playground.png", full_page=True)

        page.get_by_role("button", name="Save").click()
        expect(page.locator("#notice")).to_contain_text("saved test case")
        assert page.url == game
        page.get_by_role("link", name="Saved cases").first.click()
        page.wait_for_url("**/play/saved")
        page.get_by_role("button", name="Play again").click()
        page.wait_for_url("**/play/conversations/*")
        assert page.url != game
        expect(page.locator("#verdict-compat .verdict")).to_have_text("failed")
        expect(replies).to_have_count(3)  # every saved turn replayed to the model
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert seen.requests == [] and seen.problems == []
    saved = tmp_path / "cases" / "Encryption.jsonl"
    assert saved.is_file()
    # The case the browser saved runs from the CLI as saved, and breaks the rule there too.
    args = ["run", "scenarios", "-s", str(saved), "-m", MODEL, "--store", str(tmp_path / "r.db")]
    for key, value in model_args(tmp_path).items():
        args += ["-M", f"{key}={value}"]
    result = rulebench(*args, "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)["summary"]
    [overall] = [row for row in summary if row["group"] == "all"]
    rate = overall["pass_rate"]
    assert (overall["items"], overall["errors"], rate["successes"], rate["n"]) == (1, 0, 0, 1)
