"""The items a run hands its workers: unique ids, finished ones skipped, a shard's share only."""

from collections.abc import Iterable, Iterator
from itertools import islice

from pydantic import JsonValue

from rulebench.core.errors import DataError
from rulebench.core.items import Item
from rulebench.core.shards import Shard


class ItemQueue:
    """Hands out a task's items not finished yet, remembering every id it has seen.

    Checks that ids are unique (a duplicate would get one result for two items); once drained,
    `seen` is the whole run, which is what "completed" is checked against.
    """

    def __init__(
        self, items: Iterable[Item], done: set[str], limit: int | None, shard: Shard | None = None
    ) -> None:
        self._items = iter(islice(items, limit))
        self._done = done
        self._shard = shard
        self.seen: set[str] = set()
        # Unsharded, the whole run is this run: one set, not two.
        self._whole_ids: set[str] = set() if shard is not None else self.seen
        self.drained = False
        self.whole = 0
        """Items of the whole run seen so far (of every shard): what a merge must gather."""

    @property
    def is_empty_shard(self) -> bool:
        """Whether this is a shard of a run with items, none of which fell in it."""
        return self._shard is not None and self.drained and self.whole > 0 and not self.seen

    def __iter__(self) -> Iterator[Item]:
        return self

    def __next__(self) -> Item:
        while True:
            item = next(self._items, None)
            if item is None:
                self.drained = True
                raise StopIteration
            if item.id in self._whole_ids:
                raise DataError(f"two items share the id {item.id}: item ids must be unique")
            self._whole_ids.add(item.id)
            self.whole = len(self._whole_ids)
            if self._shard is not None and not self._shard.holds(item.id):
                continue
            self.seen.add(item.id)  # the same set as _whole_ids when unsharded
            if item.id not in self._done:
                return item


def shard_notes(shard: Shard | None, queue: ItemQueue) -> dict[str, JsonValue]:
    """What a merge needs of a shard: its place and, once drained, the whole run's item count.

    A queue stopped early has not seen every item of the whole, so the count is left out.
    """
    if shard is None:
        return {}
    notes: dict[str, JsonValue] = {"index": shard.index, "count": shard.count}
    if queue.drained:
        notes["whole_items"] = queue.whole
        notes["shard_items"] = len(queue.seen)
    return {"shard": notes}
