"""Base against tuned on the same items: paired accuracy differences, as in the paper's Table 3.

Both models answer the same items (same ids), so the difference is computed over matched pairs:
Newcombe's paired 95% interval and the exact McNemar test on the discordant pairs. An item only
one side finished, or that one side did not score (an error, an excluded refusal), is left out
and counted, so a difference is never over items the other side never saw.
"""

from collections import defaultdict
from collections.abc import Iterable, Mapping

from pydantic import BaseModel, ConfigDict

from rulebench.core.items import ItemResult
from rulebench.core.stats import mcnemar_exact
from rulebench.inferential.differences import Delta, paired_difference

ALL_GROUPS = "all"


class ScoredItem(BaseModel):
    """One item's verdict on one side: which row it belongs to and whether it was right."""

    model_config = ConfigDict(frozen=True)

    group: str
    correct: bool


class ComparisonRow(BaseModel):
    """One row of the before/after table."""

    model_config = ConfigDict(frozen=True)

    evaluation: str
    """What was measured, e.g. "StringGame in-distribution" or "RuleBench clutrr"."""
    pairs: int
    base: float
    tuned: float
    delta: Delta | None
    """tuned minus base with its paired 95% interval; None without pairs."""
    mcnemar_p: float | None
    """Exact two-sided McNemar p-value; None without pairs."""
    only_base: int
    """Pairs the base model got right and the tuned one wrong."""
    only_tuned: int
    unpaired: int
    """Items scored on one side only (left out of the row)."""


def scored_items(results: Iterable[ItemResult], group_by: str | None) -> dict[str, ScoredItem]:
    """Item id -> verdict for every scored result (errors and unscored items left out).

    A score counts where the task gives one, else a rule check's verdict (scenarios).
    """
    found = {}
    for result in results:
        outcome = result.outcome
        if result.error is not None or outcome is None:
            continue
        if outcome.score is not None:
            correct = outcome.score >= 1.0
        elif outcome.passed is not None:
            correct = outcome.passed
        else:
            continue
        group = str(result.metadata.get(group_by, "")) if group_by else ""
        found[result.item_id] = ScoredItem(group=group, correct=correct)
    return found


def compare_rows(
    evaluation: str, base: Mapping[str, ScoredItem], tuned: Mapping[str, ScoredItem]
) -> list[ComparisonRow]:
    """A row per group of the paired items, and an overall row when there are several.

    A named group's row is "<evaluation>: <group>"; items without a group make one row named
    after the evaluation. Items scored on one side only are counted on the overall row.
    """
    pairs_by_group: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for item_id, verdict in base.items():
        if item_id in tuned:
            pairs_by_group[verdict.group].append((tuned[item_id].correct, verdict.correct))
    unpaired = len(base.keys() ^ tuned.keys())
    groups = sorted(pairs_by_group)
    if not groups or groups == [""]:
        return [_row(evaluation, pairs_by_group.get("", []), unpaired)]
    if len(groups) == 1:
        return [_row(f"{evaluation}: {groups[0]}", pairs_by_group[groups[0]], unpaired)]
    rows = [_row(f"{evaluation}: {group}", pairs_by_group[group], 0) for group in groups]
    everything = [pair for group in groups for pair in pairs_by_group[group]]
    return [*rows, _row(f"{evaluation}: {ALL_GROUPS}", everything, unpaired)]


def _row(evaluation: str, pairs: list[tuple[bool, bool]], unpaired: int) -> ComparisonRow:
    """Pairs are (tuned right, base right): the difference is tuned minus base."""
    n = len(pairs)
    only_tuned = sum(1 for tuned, base in pairs if tuned and not base)
    only_base = sum(1 for tuned, base in pairs if base and not tuned)
    return ComparisonRow(
        evaluation=evaluation,
        pairs=n,
        base=sum(base for _, base in pairs) / n if n else 0.0,
        tuned=sum(tuned for tuned, _ in pairs) / n if n else 0.0,
        delta=paired_difference(pairs),
        mcnemar_p=mcnemar_exact(only_tuned, only_base) if n else None,
        only_base=only_base,
        only_tuned=only_tuned,
        unpaired=unpaired,
    )


def markdown_table(
    rows: Iterable[ComparisonRow], sides: tuple[str, str] = ("base", "tuned")
) -> str:
    """The rows as a Markdown table: accuracies (headed by `sides`) and differences in points."""
    lines = [
        f"| evaluation | n | {sides[0]} | {sides[1]} | difference [95% CI] | McNemar p |",
        "|---|---:|---:|---:|---|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row.evaluation} | {row.pairs} | {format_accuracy(row, row.base)} | "
            f"{format_accuracy(row, row.tuned)} | {format_delta(row.delta)} | "
            f"{format_p(row.mcnemar_p)} |"
        )
    return "\n".join(lines) + "\n"


def format_accuracy(row: ComparisonRow, value: float) -> str:
    """An accuracy in percent, or n/a for a row without pairs."""
    return f"{100 * value:.1f}" if row.pairs else "n/a"


def format_delta(delta: Delta | None) -> str:
    """`+12.0 [+3.1, +20.4]` in points, or n/a."""
    if delta is None:
        return "n/a"
    return f"{100 * delta.value:+.1f} [{100 * delta.low:+.1f}, {100 * delta.high:+.1f}]"


def format_p(p: float | None) -> str:
    """A p-value with three significant digits, or n/a."""
    return "n/a" if p is None else f"{p:.3g}"
