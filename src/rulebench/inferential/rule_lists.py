"""Which rules an item lists, in which order: the golden rule plus seeded noise rules.

Noise rules are drawn without replacement, of the golden rule's kind (factual prompts list
factual rules, counterfactual prompts counterfactual ones), never the golden rule (nor its
twin), never a rule the generator marked as applying to the question, and from
a `random.Random` seeded by the setting's seed and the sample id: a documented improvement on
upstream, which draws unseeded and sometimes with replacement.
"""

import random
from collections.abc import Sequence
from typing import NamedTuple

from rulebench.core.errors import DataError
from rulebench.core.rules import Rule, Sample, TaskData
from rulebench.inferential.official import rule_file_label
from rulebench.inferential.settings import Setting


class RuleListing(NamedTuple):
    """The rules shown with one question, and where the golden one is."""

    rules: tuple[Rule, ...]
    golden_index: int | None
    """0-based position of the golden rule; None when no rules are shown."""


def golden_of(sample: Sample, setting: Setting) -> tuple[str, str]:
    """The rule that applies and the gold answer under this setting (counterfactual or not)."""
    if setting.counterfactual and sample.cf_golden_rule is not None and sample.cf_gold is not None:
        return sample.cf_golden_rule, sample.cf_gold
    return sample.golden_rule, sample.gold


def _excluded(sample: Sample) -> set[str]:
    """Rules that must not appear as noise: both goldens and whatever applies to the question."""
    excluded = {sample.golden_rule}
    if sample.cf_golden_rule is not None:
        excluded.add(sample.cf_golden_rule)
    for key in ("applicable_rules", "cf_applicable_rules"):
        value = sample.metadata.get(key)
        if isinstance(value, list):
            excluded.update(str(rule_id) for rule_id in value)
    return excluded


def _noise_pool(data: TaskData, excluded: set[str], counterfactual: bool) -> list[str]:
    """Rules that may be listed as noise: of the golden rule's kind (factual or counterfactual)."""
    return [
        rule_id
        for rule_id, rule in sorted(data.rules.items())
        if rule_id not in excluded and rule.counterfactual == counterfactual
    ]


def list_rules(sample: Sample, setting: Setting, data: TaskData) -> RuleListing:
    """The per-item listing: golden at a seeded random position among seeded noise rules."""
    count = setting.count_for(data.name)
    if count == 0:
        return RuleListing((), None)
    golden_id, _ = golden_of(sample, setting)
    rng = random.Random(f"{setting.seed}:{sample.id}")
    excluded = _excluded(sample)
    counterfactual = data.rules[golden_id].counterfactual
    own = sample.metadata.get("cf_noise_rules" if counterfactual else "noise_rules")
    if isinstance(own, list):  # a generator's own candidates: the prompt ignores other samples
        pool = [str(rule_id) for rule_id in own if rule_id not in excluded]
    else:
        pool = _noise_pool(data, excluded, counterfactual)
    noise = rng.sample(pool, min(count - 1, len(pool)))
    position = rng.randrange(len(noise) + 1)
    ids = [*noise[:position], golden_id, *noise[position:]]
    rules = tuple(data.rules[i] for i in ids)
    check_form(rules, setting, data.name)
    return RuleListing(rules, position)


def check_form(rules: Sequence[Rule], setting: Setting, task: str) -> None:
    """FOL asked for where a listed rule has none: an error naming the rule file and rule id.

    Checked when the listing is made, before any prompt is rendered or model called; ulogic-cf's
    rule files, for one, give natural language only.
    """
    if setting.form != "fol":
        return
    for rule in rules:
        if rule.fol is None:
            raise DataError(
                f"{rule_file_label(task)}: rule {rule.id} has no FOL form (the file gives this "
                f"rule in natural language only): run task '{task}' with --form nl"
            )


def shared_listings(
    samples: Sequence[Sample], setting: Setting, data: TaskData
) -> dict[str, RuleListing]:
    """One rule list for many items, so their prompts share a prefix (the all-rule setting).

    Samples are grouped greedily: a sample joins a group when its golden rule does not apply to
    any member's question and no member's golden rule applies to its own; each group's goldens
    are topped up with noise rules that apply to none of its members, in one seeded order. With
    a rule library no larger than the all count, that is one list for every item.
    """
    count = setting.count_for(data.name)
    groups: list[list[Sample]] = []
    for sample in samples:
        group = next((g for g in groups if _fits(sample, g, setting, count)), None)
        if group is None:
            groups.append([sample])
        else:
            group.append(sample)
    listings: dict[str, RuleListing] = {}
    for number, group in enumerate(groups):
        order = _group_order(group, setting, data, count, number)
        check_form([data.rules[i] for i in order], setting, data.name)
        for sample in group:
            golden_id, _ = golden_of(sample, setting)
            listings[sample.id] = RuleListing(
                tuple(data.rules[i] for i in order), order.index(golden_id)
            )
    return listings


def _fits(sample: Sample, group: list[Sample], setting: Setting, count: int) -> bool:
    goldens = {golden_of(member, setting)[0] for member in group}
    mine = golden_of(sample, setting)[0]
    if len(goldens | {mine}) > count:
        return False
    blocked = _excluded(sample) - {mine}
    return not (goldens & blocked) and all(
        mine not in _excluded(member) - {golden_of(member, setting)[0]} for member in group
    )


def _group_order(
    group: list[Sample], setting: Setting, data: TaskData, count: int, number: int
) -> list[str]:
    goldens = sorted({golden_of(member, setting)[0] for member in group})
    excluded = set().union(*(_excluded(member) for member in group))
    rng = random.Random(f"{setting.seed}:shared:{number}")
    pool = _noise_pool(data, excluded, data.rules[goldens[0]].counterfactual)
    order = goldens + rng.sample(pool, min(count - len(goldens), len(pool)))
    rng.shuffle(order)
    return order
