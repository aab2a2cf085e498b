"""Page numbers in query strings: which slice of a list a page shows, and its neighbours' links."""

from collections.abc import Mapping
from typing import NamedTuple

from pydantic import BaseModel, Field

from rulebench.web.templating import query_url

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500
MAX_PAGE = 10**9
"""The last page number a query may ask for: its offset must fit SQLite's 64-bit integers
(a larger one used to fail inside SQLite as a 500); a billion pages is past any store."""


class Paged(BaseModel):
    """The query parameters every paged list takes (pages' own filters add to these)."""

    page: int = Field(default=1, ge=1, le=MAX_PAGE)
    """Page number, from 1."""
    size: int = Field(default=DEFAULT_PAGE_SIZE, ge=1, le=MAX_PAGE_SIZE)
    """Rows per page."""


class Pager(NamedTuple):
    """One page of a list of `total` rows, `size` rows a page."""

    page: int
    size: int
    total: int

    @property
    def offset(self) -> int:
        """Rows before this page."""
        return (self.page - 1) * self.size

    @property
    def pages(self) -> int:
        """How many pages the list fills (at least one, even when empty)."""
        return max(1, -(-self.total // self.size))

    @property
    def first_row(self) -> int:
        """The 1-based number of the page's first row (0 when the page is empty)."""
        return min(self.offset + 1, self.total)

    @property
    def last_row(self) -> int:
        """The 1-based number of the page's last row."""
        return min(self.offset + self.size, self.total)

    def links(self, path: str, params: Mapping[str, object]) -> dict[str, str | None]:
        """The previous and next pages' URLs (None at either end), keeping the other params."""
        size = None if self.size == DEFAULT_PAGE_SIZE else self.size
        kept = {**params, "size": size}
        return {
            "previous": query_url(path, {**kept, "page": self.page - 1}) if self.page > 1 else None,
            "next": query_url(path, {**kept, "page": self.page + 1})
            if self.page < self.pages
            else None,
        }
