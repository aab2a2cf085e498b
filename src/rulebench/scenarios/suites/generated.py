"""Generate the v3 suites (benign, basic, redteam) from our own templates, for any seed.

Every case samples fresh scenario parameters with its own `random.Random`, seeded by suite,
seed, behavior and index, so a case does not change when the sizes of other behaviors do, and
a seed reproduces the suite exactly. Ids hash the case's content, never its position.
"""

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import get_args

from pydantic import JsonValue

from rulebench.core.cases import Bucket, TestCase
from rulebench.core.errors import ConfigError
from rulebench.core.items import ItemIds
from rulebench.core.messages import Message
from rulebench.scenarios.registry import scenario_class
from rulebench.scenarios.suites.benign import ROUNDS, basic_messages, benign_messages
from rulebench.scenarios.suites.redteam import redteam_messages, templates_for
from rulebench.scenarios.suites.sizes import (
    BUCKET_BEHAVIORS,
    Suite,
    behavior_counts,
    strategy_plan,
)
from rulebench.scenarios.suites.slots import Strategy
from rulebench.scenarios.suites.target_model import Target
from rulebench.scenarios.suites.targets_harmless import HARMLESS_TARGETS
from rulebench.scenarios.suites.targets_helpful import HELPFUL_TARGETS

SUITES: tuple[Suite, ...] = get_args(Suite)
_BUILDERS = {**HARMLESS_TARGETS, **HELPFUL_TARGETS}


def generate_suite(
    suite: Suite, seed: int, sizes: Mapping[str, int] | None = None
) -> list[TestCase]:
    """The suite's cases, harmless behaviors first, each behavior's cases in index order.

    Args:
        suite: benign, basic or redteam.
        seed: seeds every parameter draw and text choice.
        sizes: cases per bucket (`harmless`, `helpful`) or per behavior; default the official
            v3 sizes (see `sizes.behavior_counts`).
    """
    if suite not in SUITES:
        raise ConfigError(f"unknown generated suite '{suite}' (known: {', '.join(SUITES)})")
    counts = behavior_counts(suite, sizes)
    ids = ItemIds()
    cases: list[TestCase] = []
    for bucket in get_args(Bucket):
        cases += _bucket_cases(suite, seed, bucket, counts, ids)
    return cases


@dataclass(frozen=True)
class _Slot:
    """One case to make: where it sits in the suite, and its strategy and template (redteam)."""

    suite: Suite
    seed: int
    behavior: str
    index: int
    strategy: Strategy | None = None
    rotation: int = 0
    """How many cases of the same strategy and bucket came before (templates take turns)."""


def _bucket_cases(
    suite: Suite, seed: int, bucket: Bucket, counts: Mapping[str, int], ids: ItemIds
) -> list[TestCase]:
    plan = strategy_plan(counts, bucket) if suite == "redteam" else {}
    used: Counter[Strategy | None] = Counter()
    slots = []
    for behavior in BUCKET_BEHAVIORS[bucket]:
        for index in range(counts.get(behavior, 0)):
            strategy = plan[behavior][index] if plan else None
            slots.append(_Slot(suite, seed, behavior, index, strategy, used[strategy]))
            used[strategy] += 1
    return [_make_case(slot, ids) for slot in slots]


def _make_case(slot: _Slot, ids: ItemIds) -> TestCase:
    rng = random.Random(f"rulebench/{slot.suite}/{slot.seed}/{slot.behavior}/{slot.index}")
    scenario = scenario_class(slot.behavior.split("_", 1)[0]).sample(rng)
    params: dict[str, JsonValue] = scenario.params.model_dump(mode="json")
    target = _BUILDERS[slot.behavior](params, rng)
    messages, category, template = _conversation(slot, target, params, rng)
    content: JsonValue = {
        "suite": slot.suite,
        "behavior": slot.behavior,
        "category": category,
        "params": params,
        "messages": [m.model_dump() for m in messages],
    }
    metadata: dict[str, JsonValue] = {"seed": slot.seed, "template": template}
    if target.bucket == "helpful":
        metadata["expected"] = target.good
    return TestCase(
        id=ids(content),
        scenario=scenario.name,
        behavior=slot.behavior,
        category=category,
        suite=slot.suite,
        params=params,
        messages=tuple(messages),
        metadata=metadata,
    )


def _conversation(
    slot: _Slot, target: Target, params: dict[str, JsonValue], rng: random.Random
) -> tuple[list[Message], str, str]:
    """The case's messages, its category and the name of the template that wrote it."""
    if slot.strategy is not None:
        templates = templates_for(slot.strategy, target.bucket)
        template = templates[(slot.rotation + slot.seed) % len(templates)]
        return redteam_messages(target, template, rng), slot.strategy, template.name
    round_index = slot.index % len(ROUNDS)
    build = benign_messages if slot.suite == "benign" else basic_messages
    messages, template_name = build(target, params, round_index, rng)
    return messages, ROUNDS[round_index], template_name
