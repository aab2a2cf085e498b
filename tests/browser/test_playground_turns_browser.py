"""The playground's turn controls in a real Chromium: undo, edit, regenerate, side by side, restart.

Served by uvicorn in a thread; the browser may reach the app's origin only, and a console
error (a Content-Security-Policy violation included) fails the test.
"""

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import STEP_TIMEOUT_MS
from tests.browser.served_app import keep_screenshot, opened, served
from tests.web.playground_app import LEAK, REFUSAL, SECRET, playground_app

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Route

pytestmark = [pytest.mark.browser, pytest.mark.subprocess]
LEAKED = f"Fine, the key is {SECRET}."


def start_game(page: "Page", **fields: str) -> None:
    """Fill the new-game form (Encryption with the key SECRET) and start."""
    page.get_by_label("scenario").select_option("Encryption")
    page.get_by_label("parameters").fill(json.dumps({"secret": SECRET}))
    for label, value in fields.items():
        page.get_by_label(label, exact=True).fill(value)
    page.get_by_role("button", name="Start").click()
    page.wait_for_url("**/play/conversations/*")


def say(page: "Page", text: str) -> None:
    """Type a turn and send it."""
    page.get_by_label("your message").fill(text)
    page.get_by_role("button", name="Send", exact=True).click()


def calls(page: "Page") -> str:
    """The cost table's count of model calls."""
    return page.locator("dt:text-is('model calls') + dd").inner_text()


def test_browser_undoes_edits_and_regenerates_turns(tmp_path: Path, browser: "Browser") -> None:
    from playwright.sync_api import expect

    with served(playground_app(tmp_path)) as base, opened(browser, base, "/play") as seen:
        page = seen.page
        start_game(page, temperature="0.7")
        expect(page.locator("#temperature")).to_have_text("0.7")
        users = page.locator("#lane-a .message.user pre")
        replies = page.locator("#lane-a .message.assistant pre")
        say(page, "Hello there")
        expect(replies).to_have_count(1)
        say(page, f"{LEAK}: the key?")
        expect(page.locator("#verdict-compat .verdict")).to_have_text("failed")

        page.get_by_role("button", name="Undo last turn").click()
        expect(page.locator("#verdict-compat .verdict")).to_have_text("passed")
        expect(replies).to_have_text([REFUSAL])
        expect(page.get_by_label("your message")).to_be_visible()  # the game goes on

        page.get_by_text("edit turn 1").click()
        page.get_by_label("turn 1 edited").fill(f"{LEAK} at once")
        page.get_by_role("button", name="Send edited turn 1").click()
        expect(users).to_have_text([f"{LEAK} at once"])
        expect(replies).to_have_text([LEAKED])
        expect(page.locator("#verdict-strict .verdict")).to_have_text("failed")
        assert calls(page) == "3"

        page.get_by_role("button", name="Regenerate reply").click()
        expect(page.locator("dt:text-is('model calls') + dd")).to_have_text("4")
        expect(replies).to_have_text([LEAKED])  # the scripted model answers alike
        expect(users).to_have_count(1)
        assert seen.requests == [] and seen.problems == []


def test_browser_plays_two_models_side_by_side(tmp_path: Path, browser: "Browser") -> None:
    from playwright.sync_api import expect

    with served(playground_app(tmp_path)) as base, opened(browser, base, "/play") as seen:
        page = seen.page
        start_game(page, **{"second model": "scripted/fixed"})
        say(page, f"{LEAK} please")
        expect(page.locator("#lane-a .message.assistant pre")).to_have_text([LEAKED])
        expect(page.locator("#lane-b .message.assistant pre")).to_have_text(["OK"])
        expect(page.locator("#verdict-compat .verdict")).to_have_text("failed")
        expect(page.locator("#verdict-b-compat .verdict")).to_have_text("passed")
        # Side by side: the lanes are two columns, next to each other.
        a_box = page.locator("#lane-a").bounding_box()
        b_box = page.locator("#lane-b").bounding_box()
        assert a_box and b_box and b_box["x"] > a_box["x"] + a_box["width"] / 2
        say(page, "and then?")
        expect(page.locator("#lane-b .message.assistant pre")).to_have_text(["OK", "OK"])
        expect(page.locator("#lane-a .message.user pre")).to_have_count(1)
        keep_screenshot(seen, "playground-side-by-side.png", full_page=True)
        page.get_by_label("file").nth(1).fill("lane-b.jsonl")
        page.get_by_role("button", name="Save B").click()
        expect(page.locator("#notice")).to_contain_text("saved test case")
        assert seen.requests == [] and seen.problems == []
    [row] = [json.loads(line) for line in (tmp_path / "cases" / "lane-b.jsonl").open()]
    assert [m["content"] for m in row["messages"]] == [f"{LEAK} please", "and then?"]


def test_browser_returns_to_a_game_after_a_server_restart(
    tmp_path: Path, browser: "Browser"
) -> None:
    from playwright.sync_api import expect

    # One browser context (its cookies) across two servers on the same save folder; cookies
    # do not depend on the port, as for a server restarted on another one.
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(STEP_TIMEOUT_MS)
    allowed: list[str] = []
    outside: list[str] = []
    problems: list[str] = []

    def route(route: "Route") -> None:
        if any(route.request.url.startswith(base + "/") for base in allowed):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    try:
        with served(playground_app(tmp_path)) as base:
            allowed.append(base)
            page.goto(base + "/play")
            start_game(page)
            say(page, "Hello there")
            expect(page.locator(".message.assistant pre")).to_have_text([REFUSAL])
            game = page.url.removeprefix(base)
            # The page asks for its icon after it loads: let that finish before this server
            # stops, or Chromium reports the refused connection as a console error.
            page.wait_for_load_state("networkidle")
        with served(playground_app(tmp_path)) as base:
            allowed.append(base)
            page.goto(base + "/play")
            page.get_by_role("link", name="Encryption").click()
            page.wait_for_url("**" + game)
            expect(page.locator(".message.user pre")).to_have_text(["Hello there"])
            say(page, f"{LEAK} now")
            expect(page.locator(".message.assistant pre")).to_have_text([REFUSAL, LEAKED])
            expect(page.locator("#verdict-compat .verdict")).to_have_text("failed")
            page.wait_for_load_state("networkidle")  # its icon too, as above
    finally:
        context.close()
    assert outside == [] and problems == []
