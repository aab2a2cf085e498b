"""A run's headline numbers, computed from its stored results (so resumed runs count whole)."""

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from rulebench.core.items import ItemResult
from rulebench.core.stats import Proportion, wilson_interval


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
    """Finished items that do not count (score None, e.g. refusals excluded by the task's rule)."""
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    cache_hits: int


class _Tally:
    def __init__(self) -> None:
        self.items = self.errors = self.excluded = self.cache_hits = 0
        self.scored = self.passed_n = 0
        self.score_sum = 0.0
        self.passed = 0
        self.prompt_tokens = self.completion_tokens = 0
        self.latency_s = 0.0

    def add(self, result: ItemResult) -> None:
        self.items += 1
        self.prompt_tokens += result.usage.prompt_tokens
        self.completion_tokens += result.usage.completion_tokens
        self.latency_s += result.latency_s
        self.cache_hits += result.cache_hits
        outcome = result.outcome
        if outcome is None:
            self.errors += 1
            return
        if outcome.score is not None:
            self.scored += 1
            self.score_sum += outcome.score
        if outcome.passed is not None:
            self.passed_n += 1
            self.passed += outcome.passed
        if outcome.score is None and outcome.passed is None:
            self.excluded += 1

    def summary(self, group: str) -> GroupSummary:
        return GroupSummary(
            group=group,
            items=self.items,
            errors=self.errors,
            accuracy=wilson_interval(self.score_sum, self.scored) if self.scored else None,
            pass_rate=wilson_interval(self.passed, self.passed_n) if self.passed_n else None,
            excluded=self.excluded,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            latency_s=self.latency_s,
            cache_hits=self.cache_hits,
        )


def summarize(results: Iterable[ItemResult], group_by: str | None = None) -> list[GroupSummary]:
    """One summary per value of the metadata field `group_by` (sorted), then the overall one."""
    overall, groups = _Tally(), dict[str, _Tally]()
    for result in results:
        overall.add(result)
        if group_by is not None:
            key = str(result.metadata.get(group_by, "-"))
            groups.setdefault(key, _Tally()).add(result)
    rows = [groups[key].summary(key) for key in sorted(groups)]
    return [*rows, overall.summary("all")]
