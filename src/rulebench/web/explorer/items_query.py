"""A run's list of items as its query string says: which items, in which order, which page.

The run page and the item page read the same parameters: an item's link carries the list it
was clicked in (filters and sort), so its previous/next links walk that list. The sort is
spelled as on the runs list: `?sort=latency&order=desc`, "" order being the key's own default.
"""

from typing import Literal

from rulebench.engine.store.browse import ResultFilter
from rulebench.engine.store.result_order import ResultOrder, SortKey
from rulebench.web.paging import DEFAULT_PAGE_SIZE, Paged
from rulebench.web.templating import query_url

FILTER_FIELDS = ("task", "setting", "scenario", "behavior", "group")
"""Metadata fields the items can be filtered by, where a run's items have them."""
_ASCENDING_KEYS = ("finished", "verdict", "group")
"""Keys listed smallest first unless asked otherwise (verdicts passed first, groups A to Z);
the others (score, tokens, latency) start with the largest."""


class ItemsQuery(Paged):
    """A run page's query string: which items, in which order, which page ("" means any)."""

    verdict: Literal["", "passed", "failed", "excluded", "error"] | None = None
    task: str | None = None
    """The item's task (an inferential run's kinship, clutrr...), not the run's."""
    setting: str | None = None
    scenario: str | None = None
    behavior: str | None = None
    group: str | None = None
    error: str | None = None
    """Text the error contains."""
    item: str | None = None
    """Text the item id contains."""
    sort: SortKey = "finished"
    order: Literal["", "asc", "desc"] = ""
    """"" lists verdicts, groups and the finish order ascending, numbers largest first."""

    def metadata(self) -> dict[str, str]:
        """The metadata fields asked for, with their values."""
        chosen = {field: getattr(self, field) for field in FILTER_FIELDS}
        return {field: value for field, value in chosen.items() if value}

    def to_filter(self) -> ResultFilter:
        """The store's filter for these parameters."""
        return ResultFilter(
            verdict=self.verdict or None,
            metadata=self.metadata(),
            error=self.error or None,
            item_id=self.item or None,
        )

    def is_descending(self) -> bool:
        """Whether the items go from the largest value down."""
        return self.order == "desc" or (not self.order and self.sort not in _ASCENDING_KEYS)

    def to_order(self, group_by: str | None) -> ResultOrder:
        """The store's order; "group" in a run whose task has no groups is the finish order."""
        key: SortKey = "finished" if self.sort == "group" and group_by is None else self.sort
        return ResultOrder(key=key, is_descending=self.is_descending(), group_field=group_by)

    def params(self) -> dict[str, object]:
        """The filters and sort as query parameters, defaults left out (no page)."""
        found = self.model_dump(exclude={"page", "size"})
        return found | {"sort": None if self.sort == "finished" else self.sort}

    def list_params(self) -> dict[str, object]:
        """What an item's link carries of the list it is in: filters, sort and page size."""
        return self.params() | {"size": None if self.size == DEFAULT_PAGE_SIZE else self.size}


SORTED_COLUMNS: tuple[tuple[SortKey, str], ...] = (
    ("verdict", "verdict"),
    ("group", "group"),
    ("score", "score"),
    ("tokens", "tokens"),
    ("latency", "latency"),
)
"""The items table's sortable columns (key, what the run page calls it)."""


def sort_headers(path: str, query: ItemsQuery) -> dict[str, dict[str, str | None]]:
    """Each sortable column's header link (the current one flips its order) and aria-sort.

    Links go back to the first page and keep the filters, as the runs list's headers do.
    """
    base = query.params() | {"size": query.list_params()["size"]}
    headers: dict[str, dict[str, str | None]] = {}
    for key, _ in SORTED_COLUMNS:
        current = key == query.sort
        if current:
            order = "asc" if query.is_descending() else "desc"
        else:
            order = "asc" if key in _ASCENDING_KEYS else "desc"
        headers[key] = {
            "url": query_url(path, base | {"sort": key, "order": order}) + "#items",
            "aria": ("descending" if query.is_descending() else "ascending") if current else None,
        }
    return headers
