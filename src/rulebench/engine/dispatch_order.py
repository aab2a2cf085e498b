"""The order a run sends its items in: as the task lists them, or grouped by shared prefix.

A served model keeps the prompt it last computed (llama.cpp's slots and prompt cache, vLLM
and SGLang's prefix cache), so items that begin alike cost less sent one after the other.
RuleBench items of one dataset and setting share their instructions and demonstrations, yet a
grid lists them cell by cell, sample by sample, and a shard or a resume scatters them further.

Grouping sorts the items of each window by their messages' text: a sort by text puts the
items with the longest common beginnings next to each other. It changes no prompt, no id
and nothing stored but the order results finish in. It is off by default: where two items
send one and the same request, the one sent first pays for it and the other is served from
the response cache, so a new order can move a cache hit from one stored row to another.
"""

from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Literal

from rulebench.core.items import Item

DispatchOrder = Literal["given", "grouped"]
"""`given`: the task's order; `grouped`: sorted by text within windows (`grouped_by_prefix`)."""

GROUP_WINDOW = 8192
"""Items sorted together: enough for a paper grid's cells to meet, while a task that yields
millions of items lazily is never held whole."""


def prefix_text(item: Item) -> str:
    """The item's conversation as one text, the key items are grouped by.

    A separator below every printable character ends each part, so a message that is a
    prefix of another sorts first, as its tokens would.
    """
    return "".join(f"{message.role}\x01{message.content}\x00" for message in item.messages)


def grouped_by_prefix(items: Iterable[Item], window: int = GROUP_WINDOW) -> Iterator[Item]:
    """The items, each `window` of them sorted by `prefix_text` (ties keep the given order).

    The same items always come out in the same order, so a run grouped twice sends alike.
    """
    source = iter(items)
    while chunk := list(islice(source, window)):
        yield from sorted(chunk, key=prefix_text)


def in_dispatch_order(items: Iterable[Item], order: DispatchOrder) -> Iterator[Item]:
    """The items in the order the run sends them."""
    return grouped_by_prefix(items) if order == "grouped" else iter(items)
