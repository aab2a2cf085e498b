"""The explorer's keyboard shortcuts in a real Chromium: → and ← between items, / to search."""

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from rulebench.web.app import create_app

from tests.browser.served_app import opened, served
from tests.web.explorer_store import synthetic_run

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = [pytest.mark.browser, pytest.mark.subprocess]


def focused_name(page: "Page") -> str | None:
    """The name attribute of the element holding the focus (None: the page itself)."""
    name = page.evaluate("() => document.activeElement && document.activeElement.name")
    return str(name) if name else None


def test_arrow_keys_walk_a_sorted_filtered_list_and_slash_focuses_search(
    tmp_path: Path, browser: "Browser"
) -> None:
    store = tmp_path / "s.sqlite"
    run_id = synthetic_run(store, 30)
    listed = f"/runs/{run_id}?verdict=failed&sort=group&order=desc"
    with served(create_app(store)) as base, opened(browser, base, listed) as seen:
        page = seen.page
        ids = page.locator("table.items tbody tr td:nth-child(1)").all_inner_texts()
        page.keyboard.press("/")
        assert focused_name(page) == "q"
        assert page.locator("input[data-key-search]").input_value() == ""  # "/" not typed
        page.keyboard.type("jk")  # typing: no shortcut fires
        assert page.locator("input[data-key-search]").input_value() == "jk"

        page.locator("table.items tbody tr").first.locator("a").click()
        page.wait_for_url(f"**/items/{ids[0]}?verdict=failed&sort=group&order=desc")
        where = page.locator("nav.item-nav .where")
        assert where.inner_text().startswith(f"item 1 of {len(ids)}")
        page.keyboard.press("ArrowLeft")  # the first item: nothing before it
        page.keyboard.press("ArrowRight")
        page.wait_for_url(f"**/items/{ids[1]}?verdict=failed&sort=group&order=desc")
        assert where.inner_text().startswith(f"item 2 of {len(ids)}")
        page.keyboard.press("j")
        page.wait_for_url(f"**/items/{ids[2]}?**")
        page.keyboard.press("k")
        page.wait_for_url(f"**/items/{ids[1]}?**")

        page.keyboard.press("/")
        assert focused_name(page) == "q"
        page.keyboard.type("x")
        page.keyboard.press("ArrowRight")  # moves the caret in the box, not the page
        page.locator("h1").click()  # out of the box: the keys are the page's again
        page.keyboard.press("j")
        page.wait_for_url(f"**/items/{ids[2]}?verdict=failed&sort=group&order=desc")
        assert where.inner_text().startswith(f"item 3 of {len(ids)}")  # one step, not two
    assert len(ids) > 3 and len(set(ids)) == len(ids)
    assert not seen.problems and not seen.requests
