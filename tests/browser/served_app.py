"""The web app served by uvicorn in a thread, and its pages opened in a browser context.

The browser may reach the app's origin only: anything else is aborted and recorded, so the
pages are seen working offline. Console errors include Content-Security-Policy violations.
"""

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from tests.browser.conftest import STEP_TIMEOUT_MS
from tests.browser.offline_page import OfflinePage
from tests.llama_server import free_port

if TYPE_CHECKING:
    from fastapi import FastAPI
    from playwright.sync_api import Browser, ConsoleMessage, Dialog, Route


@contextmanager
def served(app: "FastAPI") -> Iterator[str]:
    """The app (explorer and playground) on a free loopback port, in a thread; its base URL."""
    import uvicorn

    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="explorer", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@contextmanager
def opened(browser: "Browser", base: str, path: str) -> Iterator[OfflinePage]:
    """A page of the app in a fresh context that may reach the app's origin only."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(STEP_TIMEOUT_MS)
    page = context.new_page()
    seen = OfflinePage(page)

    def route(route: "Route") -> None:
        if route.request.url.startswith(base + "/"):
            route.continue_()
        else:
            seen.requests.append(route.request.url)
            route.abort()

    def console(message: "ConsoleMessage") -> None:
        if message.type == "error":
            seen.problems.append(f"console: {message.text}")

    def dialog(opened: "Dialog") -> None:
        seen.problems.append(opened.message)
        opened.dismiss()

    context.route("**/*", route)
    page.on("console", console)
    page.on("pageerror", lambda error: seen.problems.append(f"page error: {error}"))
    page.on("dialog", dialog)
    page.goto(base + path, wait_until="load")
    try:
        yield seen
    finally:
        context.close()


def keep_screenshot(seen: OfflinePage, name: str, full_page: bool = False) -> None:
    """Save the page's view (or all of it) as `name` in $RULEBENCH_SCREENSHOTS, when set."""
    folder = os.environ.get("RULEBENCH_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        seen.page.screenshot(path=Path(folder) / name, full_page=full_page)
