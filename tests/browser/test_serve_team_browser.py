"""A server shared with a team, in a real Chromium: per-visitor quotas and the token gate.

Two browser contexts are two visitors (each its own cookie), on one client address.
"""

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from rulebench.web.app import create_app
from rulebench.web.playground.config import PlaygroundConfig
from rulebench.web.playground.quotas import Quotas
from rulebench.web.token_gate import protect

from tests.browser.served_app import opened, served
from tests.web.explorer_store import synthetic_run
from tests.web.playground_app import MODEL, model_args

if TYPE_CHECKING:
    from fastapi import FastAPI
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, pytest.mark.subprocess]
TOKEN = "a-team-token-in-a-browser"


def shared_app(folder: Path, quotas: Quotas, token: str | None = None) -> "FastAPI":
    store = folder / "s.sqlite"
    synthetic_run(store, 3)
    config = PlaygroundConfig(
        save_dir=folder / "cases", model=MODEL, model_args=model_args(folder), quotas=quotas
    )
    # uvicorn serves any ASGI app; the gate wraps the FastAPI app as `rulebench serve` does.
    return protect(create_app(store, playground=config), token)  # type: ignore[return-value]


def unexpected(problems: list[str], status: int) -> list[str]:
    """Console errors besides Chromium's note of the refusal's own status."""
    return [p for p in problems if f"status of {status}" not in p]


def start_game(page: "Page") -> None:
    page.get_by_label("scenario").select_option("Encryption")
    page.get_by_role("button", name="Start").click()


def test_a_visitor_over_its_conversation_quota_is_told_and_another_plays_on(
    tmp_path: Path, browser: "Browser"
) -> None:
    from playwright.sync_api import expect

    quotas = Quotas(conversations_per_hour=1, visitors_per_address=2)
    with served(shared_app(tmp_path, quotas)) as base:
        with opened(browser, base, "/play") as alice:
            start_game(alice.page)
            alice.page.wait_for_url("**/play/conversations/*")
            alice.page.goto(base + "/play")
            start_game(alice.page)
            expect(alice.page.locator("#problem")).to_contain_text(
                "quota reached: this shared server allows 1 new conversations an hour per visitor"
            )
            assert "/play/conversations/" not in alice.page.url
            assert unexpected(alice.problems, 429) == [] and alice.requests == []
        with opened(browser, base, "/play") as bob:
            start_game(bob.page)
            bob.page.wait_for_url("**/play/conversations/*")
            expect(bob.page.locator("#problem")).to_have_count(0)


def test_the_token_gate_asks_once_then_lets_the_browser_in(
    tmp_path: Path, browser: "Browser"
) -> None:
    from playwright.sync_api import expect

    app = shared_app(tmp_path, Quotas.unlimited(), TOKEN)
    with served(app) as base:
        with opened(browser, base, "/play/saved") as visitor:
            page = visitor.page
            expect(page.get_by_role("heading", name="Access token needed")).to_be_visible()
            page.get_by_label("Token").fill("not-the-token-at-all")
            page.get_by_role("button", name="Enter").click()
            expect(page.get_by_text("That is not the token.")).to_be_visible()
            page.get_by_label("Token").fill(TOKEN)
            page.get_by_role("button", name="Enter").click()
            page.wait_for_url(base + "/play/saved")
            expect(page.get_by_role("heading", name="Saved test cases")).to_be_visible()
            page.goto(base + "/play")  # the cookie carries on
            expect(page.get_by_role("button", name="Start")).to_be_visible()
            cookies = page.context.cookies()
            assert all(TOKEN not in c["value"] for c in cookies)
            assert any(c["name"] == "rulebench_access" and c["httpOnly"] for c in cookies)
            assert unexpected(visitor.problems, 401) == [] and visitor.requests == []
        with opened(browser, base, f"/play?token={TOKEN}") as linked:
            expect(linked.page.get_by_role("button", name="Start")).to_be_visible()
            assert linked.page.url == base + "/play"  # the token left the address bar
