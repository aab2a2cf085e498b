"""Which StringGame rules are held out of training, by rule or by composition.

A rule is a condition paired with an output ("if the string starts with a vowel, then output the
number of vowels"). Holding out whole rules (`rules`) keeps each held-out rule out of training,
but most of them still pair a condition and an output that training rules use: the held-out test
then measures new pairings of familiar parts. Holding out by composition (`composition`) keeps
the parts out instead: the held-out rules use only held-out conditions and outputs, training
rules none of them, so every condition phrase (each part of a conjunction included) and every
output phrase of a held-out rule is absent from the training rules. Rules that mix held-out and
training parts belong to neither side and are left out of the data.
"""

import random
from collections.abc import Mapping
from typing import Literal, NamedTuple

from rulebench.inferential.tasks.stringgame.rules.library import StringRule

DEFAULT_HELDOUT_FRACTION = 0.2
"""Share of the library held out unless a config says otherwise (`train data`, `run
inferential --heldout`): the same default on both sides, so the defaults evaluate exactly the
rules the defaults kept out of training."""

HeldOutBy = Literal["rules", "composition"]
"""rules: a seeded share of the rules; composition: rules whose conditions and outputs are
held out (see the module docstring)."""


class RuleSplit(NamedTuple):
    """The rule ids on each side of a held-out split."""

    heldout: frozenset[str]
    """Rules whose samples form the held-out test; never listed in training."""
    left_out: frozenset[str]
    """Rules in neither training nor the held-out test (the composition split's mixed rules)."""


def condition_parts(rule: StringRule) -> frozenset[str]:
    """The single conditions a rule's condition is made of (one, or the parts of a conjunction)."""
    return frozenset(rule.condition.key.split("&"))


def by_rules(rule_ids: list[str], fraction: float, seed: int) -> RuleSplit:
    """A seeded `fraction` of the rules, at least one when positive; nothing left out."""
    count = max(1, round(fraction * len(rule_ids))) if fraction > 0 else 0
    chosen = random.Random(f"irft:{seed}:heldout").sample(sorted(rule_ids), count)
    return RuleSplit(frozenset(chosen), frozenset())


def by_composition(rules: Mapping[str, StringRule], fraction: float, seed: int) -> RuleSplit:
    """Hold out conditions and outputs until their rules make up `fraction` of the library.

    Greedy and seeded: each step holds out the conditions and outputs of one more rule, the one
    whose step leaves out the fewest rules net of those it adds to the held-out side (ties go
    to the seeded order), so few rules are lost to mixing.
    """
    target = max(1, round(fraction * len(rules))) if fraction > 0 else 0
    parts = {rule_id: (condition_parts(rule), rule.output.key) for rule_id, rule in rules.items()}
    order = sorted(rules)
    random.Random(f"irft:{seed}:heldout-composition").shuffle(order)
    conditions: frozenset[str] = frozenset()
    outputs: frozenset[str] = frozenset()
    split = RuleSplit(frozenset(), frozenset())
    while len(split.heldout) < target:
        best: tuple[int, RuleSplit, frozenset[str], frozenset[str]] | None = None
        tried: set[tuple[frozenset[str], frozenset[str]]] = set()
        for rule_id in order:
            more = (conditions | parts[rule_id][0], outputs | {parts[rule_id][1]})
            if rule_id in split.heldout or more in tried:
                continue
            tried.add(more)
            found = _sides(parts, *more)
            cost = len(found.left_out) - len(found.heldout)
            if best is None or cost < best[0]:
                best = (cost, found, *more)
        if best is None:
            break
        _, split, conditions, outputs = best
    return split


def _sides(
    parts: Mapping[str, tuple[frozenset[str], str]],
    conditions: frozenset[str],
    outputs: frozenset[str],
) -> RuleSplit:
    heldout, left_out = set(), set()
    for rule_id, (condition, output) in parts.items():
        if condition <= conditions and output in outputs:
            heldout.add(rule_id)
        elif condition & conditions or output in outputs:
            left_out.add(rule_id)
    return RuleSplit(frozenset(heldout), frozenset(left_out))


def split_library(
    rules: Mapping[str, StringRule], fraction: float, seed: int, by: HeldOutBy
) -> RuleSplit:
    """The held-out split of the library `rules` by `by`, seeded."""
    if by == "composition":
        return by_composition(rules, fraction, seed)
    return by_rules(list(rules), fraction, seed)
