"""Reading the explorer's pages back: the items table by column, and the pager's links."""

from tests.report.html_page import Page


def items_of(page: Page) -> list[dict[str, str]]:
    """The rows of a run page's items table by column (no answer column without answers)."""
    [table] = [t for t in page.tables if t and t[0][:2] == ["item", "verdict"]]
    return [dict(zip(table[0], row, strict=True)) for row in table[1:]]


def ids_of(page: Page) -> list[str]:
    """The item ids a run page lists, in order."""
    return [row["item"] for row in items_of(page)]


def link(page: Page, rel: str) -> str | None:
    """The href of the page's link with this rel (prev/next page), if any."""
    found = [attrs["href"] for attrs in page.tags("a") if attrs.get("rel") == rel]
    return str(found[0]) if found else None
