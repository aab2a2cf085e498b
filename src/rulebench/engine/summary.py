"""A run's headline numbers, aggregated in SQL from its stored results (resumed parts included)."""

from collections.abc import Sequence
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from rulebench.core.pricing import Price
from rulebench.core.stats import Proportion, wilson_interval


class Tally(NamedTuple):
    """Sums over the results of one group, as the store aggregates them."""

    group: str
    items: int
    errors: int
    scored: int
    score_sum: float
    judged: int
    passed: int
    excluded: int
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    cache_hits: int
    cached_prompt_tokens: int
    cached_completion_tokens: int
    scoring_tokens: int


class GroupSummary(BaseModel):
    """Counts and rates of one group of items (or of the whole run)."""

    model_config = ConfigDict(frozen=True)

    group: str
    items: int
    errors: int
    accuracy: Proportion | None
    """Mean score over scored items, with its 95% CI; None when no item has a score."""
    pass_rate: Proportion | None
    """Share of items whose verdict is "passed", with its 95% CI; None when none has a verdict."""
    excluded: int
    """Finished items that do not count (no score, no verdict: e.g. refusals a task excludes)."""
    prompt_tokens: int
    completion_tokens: int
    """Tokens the model read and wrote for this run (cached replies aside)."""
    latency_s: float
    cache_hits: int
    cached_prompt_tokens: int
    cached_completion_tokens: int
    """Tokens of replies served from the response cache, which no model spent this time."""
    scoring_tokens: int
    """Tokens read to score choices by log-likelihood."""
    cost_usd: float | None = None
    """What the tokens cost at the user's prices (see core.pricing); None without a price."""


def to_summary(tally: Tally) -> GroupSummary:
    """Rates with confidence intervals from a group's sums."""
    return GroupSummary(
        group=tally.group,
        items=tally.items,
        errors=tally.errors,
        accuracy=wilson_interval(tally.score_sum, tally.scored) if tally.scored else None,
        pass_rate=wilson_interval(tally.passed, tally.judged) if tally.judged else None,
        excluded=tally.excluded,
        prompt_tokens=tally.prompt_tokens,
        completion_tokens=tally.completion_tokens,
        latency_s=tally.latency_s,
        cache_hits=tally.cache_hits,
        cached_prompt_tokens=tally.cached_prompt_tokens,
        cached_completion_tokens=tally.cached_completion_tokens,
        scoring_tokens=tally.scoring_tokens,
    )


def priced(rows: Sequence[GroupSummary], price: Price | None) -> list[GroupSummary]:
    """The rows with their cost at `price` (scoring tokens count as input); unchanged without."""
    if price is None:
        return list(rows)
    return [
        row.model_copy(
            update={
                "cost_usd": price.cost_usd(
                    row.prompt_tokens + row.scoring_tokens, row.completion_tokens
                )
            }
        )
        for row in rows
    ]


def summarize(tallies: Sequence[Tally], grouped: bool) -> list[GroupSummary]:
    """One summary per group (sorted by name) when `grouped`, then the overall one."""
    width = len(Tally._fields) - 1
    sums = [sum(column) for column in zip(*(t[1:] for t in tallies), strict=True)] or [0] * width
    overall = Tally("all", *sums)
    rows = [to_summary(t) for t in sorted(tallies)] if grouped else []
    return [*rows, to_summary(overall)]
