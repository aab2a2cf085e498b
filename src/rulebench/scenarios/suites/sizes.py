"""How many cases a generated suite holds per behavior, and which strategy each red-team case uses.

The defaults reproduce the official v3 sizes (benign and basic: 25 per behavior, 225 harmless
and 250 helpful; redteam: 39 per behavior and 41 for AccessControl and Confidentiality, 355 and
390), so generated scores are read on the same scale as published ones.
"""

import difflib
from collections.abc import Mapping, Sequence
from typing import Literal

from rulebench.core.cases import Bucket
from rulebench.core.errors import ConfigError
from rulebench.scenarios.suites.slots import STRATEGIES, Strategy
from rulebench.scenarios.suites.targets_harmless import HARMLESS_TARGETS
from rulebench.scenarios.suites.targets_helpful import HELPFUL_TARGETS

Suite = Literal["benign", "basic", "redteam"]
BUCKET_BEHAVIORS: dict[Bucket, tuple[str, ...]] = {
    "harmless": tuple(HARMLESS_TARGETS),
    "helpful": tuple(HELPFUL_TARGETS),
}
_REDTEAM_LARGER = frozenset({"AccessControl", "Confidentiality"})

REDTEAM_STRATEGY_WEIGHTS: dict[Bucket, tuple[int, ...]] = {
    "harmless": (9, 153, 40, 63, 54, 36),
    "helpful": (10, 190, 20, 70, 50, 50),
}
"""Upstream's v3 red-team case counts per strategy, in `STRATEGIES` order (sums 355 and 390)."""


def official_sizes(suite: Suite) -> dict[str, int]:
    """Behavior -> number of cases in the official v3 release."""
    behaviors = [*BUCKET_BEHAVIORS["harmless"], *BUCKET_BEHAVIORS["helpful"]]
    if suite != "redteam":
        return dict.fromkeys(behaviors, 25)
    return {b: 41 if b in _REDTEAM_LARGER else 39 for b in behaviors}


def behavior_counts(suite: Suite, sizes: Mapping[str, int] | None) -> dict[str, int]:
    """Behavior -> case count from the requested sizes (None: the official ones).

    Args:
        suite: which suite's official proportions split a bucket total.
        sizes: keys are buckets (`harmless`, `helpful`: a total split over the bucket's
            behaviors in the official proportions) or behaviors (an exact count). Behaviors
            named by neither get no cases.
    """
    official = official_sizes(suite)
    if sizes is None:
        return official
    counts = dict.fromkeys(official, 0)
    for key, size in sizes.items():
        if size < 0:
            raise ConfigError(f"sizes: '{key}' must be a count of 0 or more, got {size}")
        if key in BUCKET_BEHAVIORS:
            members = BUCKET_BEHAVIORS[key]
            shares = apportion(size, [official[b] for b in members])
            counts.update(zip(members, shares, strict=True))
        elif key not in official:
            known = [*BUCKET_BEHAVIORS, *official]
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            raise ConfigError(f"sizes: unknown bucket or behavior '{key}'.{hint}")
    counts.update({key: size for key, size in sizes.items() if key in official})
    return {behavior: count for behavior, count in counts.items() if count}


def apportion(total: int, weights: Sequence[int]) -> list[int]:
    """Split `total` in proportion to `weights` exactly (largest remainder, ties to the first)."""
    weight_sum = sum(weights)
    if weight_sum == 0:
        return [0] * len(weights)
    exact = [total * w / weight_sum for w in weights]
    shares = [int(x) for x in exact]
    by_remainder = sorted(range(len(weights)), key=lambda i: (shares[i] - exact[i], i))
    for index in by_remainder[: total - sum(shares)]:
        shares[index] += 1
    return shares


def strategy_plan(counts: Mapping[str, int], bucket: Bucket) -> dict[str, list[Strategy]]:
    """Each behavior's red-team strategies, so that the bucket's totals follow upstream's.

    Strategies are dealt to behaviors in turn (one case per behavior per pass), so Just Ask
    lands once on each behavior and every behavior gets a similar mix.
    """
    members = [b for b in BUCKET_BEHAVIORS[bucket] if counts.get(b, 0)]
    total = sum(counts[b] for b in members)
    shares = apportion(total, REDTEAM_STRATEGY_WEIGHTS[bucket])
    labels = [s for s, n in zip(STRATEGIES, shares, strict=True) for _ in range(n)]
    plan: dict[str, list[Strategy]] = {b: [] for b in members}
    turn = 0
    while labels:
        behavior = members[turn % len(members)]
        if len(plan[behavior]) < counts[behavior]:
            plan[behavior].append(labels.pop(0))
        turn += 1
    return plan
