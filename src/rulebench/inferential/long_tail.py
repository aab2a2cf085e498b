"""The long-tail view (paper appendix D): accuracy on the questions with the rarest gold labels.

The long tail is the rarest labels that together still make up at least 10% of the questions:
labels sorted by how many questions have them (fewest first, ties by name), taken until their
share reaches 10%. The paper does this for SALAD, whose six category labels are meaningful.
"""

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from rulebench.core.stats import Proportion
from rulebench.inferential.analysis import Cell, Record, accuracy_by, cell_of
from rulebench.inferential.registry import task_definition, task_names

LONG_TAIL_SHARE = 0.1


def long_tail_tasks() -> tuple[str, ...]:
    """Tasks whose definition asks for the view (SALAD's: a rare category is a rare case)."""
    return tuple(name for name in task_names() if task_definition(name).long_tail)


def rarest_labels(counts: Mapping[str, int], share: float = LONG_TAIL_SHARE) -> tuple[str, ...]:
    """The rarest labels whose counts add up to at least `share` of all; () when empty."""
    total = sum(counts.values())
    chosen: list[str] = []
    running = 0
    for label, count in sorted(counts.items(), key=lambda kv: (kv[1], kv[0])):
        if total == 0 or running >= share * total:
            break
        chosen.append(label)
        running += count
    return tuple(chosen)


def label_counts(records: Sequence[Record]) -> Counter[str]:
    """Questions per gold label, each question counted once however many cells ask it."""
    golds = {(r.sample_id or f"#{i}", r.gold) for i, r in enumerate(records)}
    return Counter(gold for _, gold in golds)


class LongTail(NamedTuple):
    """One task's long tail and the accuracy of each cell on all questions and on the tail."""

    labels: tuple[str, ...]
    share: float
    """Fraction of the task's questions whose label is in the tail."""
    questions: int
    cells: dict[Cell, tuple[Proportion, Proportion]]
    """Cell -> (accuracy on all its items, accuracy on its long-tail items)."""


def long_tail(records: Sequence[Record], tasks: Sequence[str] | None = None) -> dict[str, LongTail]:
    """Per task present in `records`: the long tail and each cell's accuracy on it.

    Args:
        records: finished items of any tasks.
        tasks: the tasks to look at; default `long_tail_tasks()`.
    """
    found = {}
    chosen = long_tail_tasks() if tasks is None else tasks
    for task in sorted({r.task for r in records} & set(chosen)):
        mine = [r for r in records if r.task == task]
        counts = label_counts(mine)
        labels = rarest_labels(counts)
        total = sum(counts.values())
        everything = accuracy_by(mine, cell_of)
        tail = accuracy_by([r for r in mine if r.gold in labels], cell_of)
        found[task] = LongTail(
            labels=labels,
            share=sum(counts[label] for label in labels) / total if total else 0.0,
            questions=total,
            cells={cell: (p, tail[cell]) for cell, p in everything.items() if cell in tail},
        )
    return found
