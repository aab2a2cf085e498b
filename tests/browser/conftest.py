"""A real headless Chromium (Debian's package) driven by Playwright, and pages opened offline.

Playwright's own browser download is not reachable from CI, so the tests launch the system
Chromium. Without it they fail, never skip: a skipped browser test would pass CI unseen.
"""

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.offline_page import OfflinePage

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Dialog, Route

CHROMIUM_ENV_VAR = "RULEBENCH_CHROMIUM"
CHROMIUM = "/usr/bin/chromium"
INSTALL_HINT = "apt-get install -y --no-install-recommends chromium fonts-liberation"
# A broken page should fail in seconds, not after Playwright's default 30 s per step.
STEP_TIMEOUT_MS = 10_000


@pytest.fixture(scope="module")
def browser() -> Iterator["Browser"]:
    """Headless Chromium, one per test module.

    Playwright's sync API suits sync tests under pytest-asyncio's auto mode, but while it is
    started the thread counts as running an event loop: `asyncio.run`, as in the CLI's `run`
    commands, fails there, and `rulebench.run` moves to a worker thread. Module scope keeps
    Chromium from idling through the rest of the session.
    """
    executable = Path(os.environ.get(CHROMIUM_ENV_VAR) or CHROMIUM)
    if not (executable.is_file() and os.access(executable, os.X_OK)):
        pytest.fail(
            f"no Chromium at {executable}: install Debian's package ({INSTALL_HINT}, as root) "
            f"or point {CHROMIUM_ENV_VAR} to a Chromium executable",
            pytrace=False,
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as error:
        pytest.fail(f"{error}: install the dev extra (pip install -e '.[dev]')", pytrace=False)
    with sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
        launched = playwright.chromium.launch(
            executable_path=str(executable), headless=True, args=["--no-sandbox"]
        )
        yield launched
        launched.close()


@pytest.fixture
def open_offline(browser: "Browser") -> Iterator[Callable[[Path], OfflinePage]]:
    """Opens an HTML file in a fresh offline context that lets through only that file."""
    contexts: list[BrowserContext] = []

    def open_file(path: Path) -> OfflinePage:
        url = path.resolve().as_uri()
        context = browser.new_context(viewport={"width": 1280, "height": 1000})
        contexts.append(context)
        context.set_default_timeout(STEP_TIMEOUT_MS)
        context.set_offline(True)
        page = context.new_page()
        opened = OfflinePage(page)

        # Routing sees file:// requests too (checked with Chromium 156), so the page's own
        # file is the one request let through.
        def route(route: "Route") -> None:
            if route.request.url == url:
                route.continue_()
            else:
                opened.requests.append(route.request.url)
                route.abort()

        def console(message: "ConsoleMessage") -> None:
            if message.type == "error":
                opened.problems.append(f"console: {message.text}")

        def dialog(shown: "Dialog") -> None:
            opened.problems.append(f"dialog {shown.type}: {shown.message}")
            shown.dismiss()

        context.route("**/*", route)
        page.on("console", console)
        page.on("pageerror", lambda error: opened.problems.append(f"page error: {error}"))
        page.on("dialog", dialog)
        page.goto(url, wait_until="load")
        return opened

    yield open_file
    for context in contexts:
        context.close()
