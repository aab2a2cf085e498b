"""A run's headline numbers, aggregated in SQL from its stored results (resumed parts included).

Rates count samples, not evaluations: with `--repeats` each sample's repeats are averaged into one
score first, so n is the number of samples and identical repeats add no false precision.
"""

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

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
    samples_scored: int
    """Samples (an item's repeats together) with at least one scored evaluation."""
    sample_score_sum: float
    """Sum over those samples of their mean score across repeats."""
    samples_judged: int
    sample_pass_sum: float
    """The same two for verdicts (multi-turn cases): samples judged, sum of their pass rates."""
    reasoning_unfinished: int = 0
    """Results whose last reply's thinking never finished (cut by the reply limit)."""
    reasoning_tokens: int = 0
    """Of `completion_tokens`, those the model spent thinking."""


HAS_REPEATS = (
    "SELECT EXISTS (SELECT 1 FROM results WHERE run_id = ? "
    "AND json_extract(metadata, '$.repeat') > 0)"
)
"""Whether a run holds repeats: items carry their repeat index in the metadata."""

# What one sample is when the run has repeats: the metadata without the repeat index (the
# repeats of an item differ only there).
_SAMPLE_KEY = "json_remove(metadata, '$.repeat')"
ITEM_SUMS = (
    "COUNT(*) AS items, SUM(status = 'error') AS errors, COUNT(score) AS scored, "
    "TOTAL(score) AS score_sum, COUNT(passed) AS judged, TOTAL(passed) AS passed, "
    "SUM(status = 'ok' AND score IS NULL AND passed IS NULL) AS excluded, "
    "SUM(prompt_tokens) AS pt, SUM(completion_tokens) AS ct, TOTAL(latency_s) AS lat, "
    "SUM(cache_hits) AS hits, SUM(cached_prompt_tokens) AS cpt, "
    "SUM(cached_completion_tokens) AS cct, SUM(scoring_tokens) AS st"
)


def group_sql(group_by: str | None) -> tuple[str, str]:
    """A result's group in SQL (the metadata field `group_by`, else "all") and its `?2`."""
    if group_by:
        return "json_extract(metadata, ?2)", f'$."{group_by}"'
    return "?2", "all"


def reasoning_sums(has_reasoning: bool) -> tuple[str, str]:
    """The reasoning sums of `Tally`, after the others; 0 over a store from before them."""
    if not has_reasoning:
        return "0", "0"
    return "SUM(reasoning_unfinished)", "SUM(reasoning_tokens)"


def tally_query(
    group_by: str | None, by_sample: bool, has_reasoning: bool = True
) -> tuple[str, tuple[str, ...]]:
    """The SQL (and its parameters after the run id) that sums a run's results into `Tally` rows.

    `by_sample` (the run has repeats, HAS_REPEATS): per sample first, its repeats together,
    then per group. Without repeats each item is its own sample, and one pass over the results
    gives the same sums (a sample's mean is its one score) several times faster: the nested
    form aggregates every item as a group of its own (bench/bench_web.py). `?1` is the run id.
    `has_reasoning`: the results table has the reasoning columns (a read-only older store not).
    """
    group, path = group_sql(group_by)
    unfinished, thinking = reasoning_sums(has_reasoning)
    if not by_sample:
        query = (
            f"SELECT {group} AS g, {ITEM_SUMS}, COUNT(score), TOTAL(score), COUNT(passed), "
            f"TOTAL(passed), {unfinished}, {thinking} FROM results WHERE run_id = ?1 GROUP BY 1"
        )
        return query, (path,)
    per_sample = (
        f"SELECT {group} AS g, {ITEM_SUMS}, AVG(score) AS sample_score, "
        f"AVG(passed) AS sample_pass, {unfinished} AS ru, {thinking} AS rt "
        f"FROM results WHERE run_id = ?1 GROUP BY 1, {_SAMPLE_KEY}"
    )
    query = (
        "SELECT g, SUM(items), SUM(errors), SUM(scored), TOTAL(score_sum), SUM(judged), "
        "TOTAL(passed), SUM(excluded), SUM(pt), SUM(ct), TOTAL(lat), SUM(hits), SUM(cpt), "
        "SUM(cct), SUM(st), COUNT(sample_score), TOTAL(sample_score), COUNT(sample_pass), "
        f"TOTAL(sample_pass), SUM(ru), SUM(rt) FROM ({per_sample}) GROUP BY 1"
    )
    return query, (path,)


class GroupSummary(BaseModel):
    """Counts and rates of one group of items (or of the whole run)."""

    model_config = ConfigDict(frozen=True)

    group: str
    items: int
    errors: int
    accuracy: Proportion | None
    """Mean score over scored samples (repeats averaged first), with its 95% CI; None when no
    item has a score."""
    pass_rate: Proportion | None
    """Share of samples whose verdict is "passed" (repeats averaged first), with its 95% CI;
    None when none has a verdict."""
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
    reasoning_unfinished: int = 0
    """Replies whose thinking the reply limit cut short: they have no answer, so a low score
    or a kept rule there is truncation, not the model's answer (reports say how many)."""
    reasoning_tokens: int = 0
    """Of `completion_tokens`, those spent thinking."""
    cost_usd: float | None = None
    """What the tokens cost at the user's prices (see core.pricing); None without a price."""


def to_summary(tally: Tally) -> GroupSummary:
    """Rates with confidence intervals from a group's sums."""
    return GroupSummary(
        group=tally.group,
        items=tally.items,
        errors=tally.errors,
        accuracy=(
            wilson_interval(tally.sample_score_sum, tally.samples_scored)
            if tally.samples_scored
            else None
        ),
        pass_rate=(
            wilson_interval(tally.sample_pass_sum, tally.samples_judged)
            if tally.samples_judged
            else None
        ),
        excluded=tally.excluded,
        prompt_tokens=tally.prompt_tokens,
        completion_tokens=tally.completion_tokens,
        latency_s=tally.latency_s,
        cache_hits=tally.cache_hits,
        cached_prompt_tokens=tally.cached_prompt_tokens,
        cached_completion_tokens=tally.cached_completion_tokens,
        scoring_tokens=tally.scoring_tokens,
        reasoning_unfinished=tally.reasoning_unfinished,
        reasoning_tokens=tally.reasoning_tokens,
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


class PassSums(NamedTuple):
    """One group's verdicts, each sample's repeats averaged first: what a Wilson interval needs."""

    breakdown: int
    """Which of the asked breakdowns the group belongs to (its index)."""
    key: tuple[object, ...]
    """The group's metadata values, as SQLite returns them, in the breakdown's field order."""
    pass_sum: float
    """Sum over the group's samples of their pass rate across repeats."""
    samples: int


UNREADABLE = -1
"""`PassSums.breakdown` of the row whose `samples` counts judged results with unreadable fields."""
SAMPLES = -2
"""`PassSums.breakdown` of the row whose `samples` counts the run's judged samples."""
_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def pass_sums_query(
    breakdowns: Sequence[Sequence[str]], sample_field: str, required: Sequence[str]
) -> str:
    """SQL (`?1` the run id) giving `PassSums` rows of a run's judged results per breakdown.

    A breakdown groups by one or more metadata fields; within a group a sample (the results
    sharing `sample_field`) counts once, at the mean of its verdicts, as `stats.sample_means`
    has it. Only finished results with a verdict count. Two more rows: the results where a
    `required` field is not a text, or another is neither text nor null (UNREADABLE), and
    the judged samples of the whole run (SAMPLES), so a caller can tell whether groups it
    merges share a sample.
    """
    fields = list(dict.fromkeys([sample_field, *required, *(f for b in breakdowns for f in b)]))
    for name in fields:
        if not _FIELD_NAME.fullmatch(name):
            raise ValueError(f"pass_sums_query: {name!r} is not a metadata field name")
    column = {name: f"f{index}" for index, name in enumerate(fields)}
    extracted = ", ".join(
        f"json_extract(metadata, '$.{name}') AS {column[name]}" for name in fields
    )
    # typeof on the extracted value, not json_type: one parse of each row's metadata, not two
    # (the charts' query took twice as long). An object or array reads as its JSON text.
    unreadable = " OR ".join(
        f"typeof({column[name]}) IS NOT 'text'"
        if name in required
        else f"typeof({column[name]}) NOT IN ('text', 'null')"
        for name in fields
    )
    width = max((len(b) for b in breakdowns), default=1)
    sample = column[sample_field]
    parts = []
    for index, breakdown in enumerate(breakdowns):
        keys = [column[name] for name in breakdown]
        padded = ", ".join([*keys, *["NULL"] * (width - len(keys))])
        grouped = ", ".join(keys)
        parts.append(
            f"SELECT {index}, {padded}, TOTAL(m), COUNT(*) FROM (SELECT {grouped}, "
            f"AVG(p) AS m FROM judged GROUP BY {grouped}, {sample}) GROUP BY {grouped}"
        )
    nulls = ", ".join(["NULL"] * width)
    parts.append(f"SELECT {UNREADABLE}, {nulls}, 0, TOTAL({unreadable}) FROM judged")
    parts.append(f"SELECT {SAMPLES}, {nulls}, 0, COUNT(DISTINCT {sample}) FROM judged")
    # Read by every part, the CTE is materialized once: each row's metadata is parsed once.
    # (No MATERIALIZED hint: SQLite before 3.35 does not know it.)
    return (
        f"WITH judged AS (SELECT {extracted}, passed AS p FROM results "
        "WHERE run_id = ?1 AND status = 'ok' AND passed IS NOT NULL) " + " UNION ALL ".join(parts)
    )


def to_pass_sums(rows: Sequence[Sequence[Any]]) -> list[PassSums]:
    """`pass_sums_query`'s rows as `PassSums`."""
    return [PassSums(int(row[0]), tuple(row[1:-2]), float(row[-2]), int(row[-1])) for row in rows]
