"""The kinship task's rule set: every sample's golden and counterfactual rule, plus extra chains.

Noise rules are drawn from rules that do not apply to a sample's story, so the set must hold
enough of them for the "all" setting (golden + 29 noise) for every sample; extra patterns, drawn
from fresh trees, are added until it does and the set holds at least `MIN_RULES`.
"""

from collections.abc import Callable, Sequence

from rulebench.core.errors import DataError
from rulebench.inferential.tasks.kinship.oracle import FactBase, RuleIndex
from rulebench.inferential.tasks.kinship.rules import KinRule, rule_id

MIN_RULES = 60
"""At least twice the 30 rules the "all" setting lists."""
NOISE_NEEDED = 29
"""Rules that must not apply to any one story: the "all" setting's noise count."""
_MAX_BATCHES = 2000
_STALE_BATCHES = 20

ExtraRules = Callable[[bool], list[KinRule]]
"""Draws a few more valid rules; its argument asks for any hop count (the range ran dry)."""


class RuleLibrary:
    """A growing set of kinship rules and, per story, which of them apply to it."""

    def __init__(
        self,
        rules: Sequence[KinRule],
        stories: Sequence[FactBase],
        is_counterfactual: Callable[[KinRule], bool] = lambda rule: False,
    ) -> None:
        self._is_counterfactual = is_counterfactual
        self.rules: dict[str, KinRule] = {}
        for rule in rules:
            self.rules.setdefault(rule_id(rule), rule)
        self.stories = list(stories)
        index = RuleIndex(self.rules)
        self.applicable = [index.applicable(story) for story in self.stories]

    def lacks_noise(self) -> bool:
        """True while the set is too small or some story has too few rules of a kind that miss it.

        Kinds (factual, counterfactual) are counted apart: a prompt lists noise of its golden
        rule's kind only.
        """
        if len(self.rules) < MIN_RULES:
            return True
        kinds = {key: self._is_counterfactual(rule) for key, rule in self.rules.items()}
        sizes = [sum(1 for cf in kinds.values() if cf == kind) for kind in (False, True)]
        present = [kind for kind, size in zip((False, True), sizes, strict=True) if size]
        for ids in self.applicable:
            applying = [sum(1 for key in ids if kinds[key] == kind) for kind in (False, True)]
            if any(sizes[kind] - applying[kind] < NOISE_NEEDED for kind in present):
                return True
        return False

    def add(self, rules: Sequence[KinRule]) -> int:
        """Add rules, update every story's applicable ids; return how many were new."""
        new: dict[str, KinRule] = {}
        for rule in rules:
            key = rule_id(rule)
            if key not in self.rules:
                new[key] = rule
        self.rules.update(new)
        index = RuleIndex(new)
        for story, ids in zip(self.stories, self.applicable, strict=True):
            ids.extend(index.applicable(story))
        return len(new)

    def fill(self, extra: ExtraRules) -> None:
        """Add extra rules in batches until every story has enough noise to draw from.

        Raises:
            DataError: the patterns allowed (hop range, split) cannot make enough distinct rules.
        """
        widen = False
        stale = 0
        for _ in range(_MAX_BATCHES):
            if not self.lacks_noise():
                return
            added = self.add(extra(widen))
            # A narrow hop range (say 2..2 within one split) has few patterns; longer chains
            # still make valid noise when the range runs out of new ones.
            stale = 0 if added else stale + 1
            widen = widen or stale >= _STALE_BATCHES
        raise DataError(
            f"kinship: could not find enough distinct extra rules ({len(self.rules)} in the set)"
        )

    def sorted_rules(self) -> dict[str, KinRule]:
        """The set by id: an order that depends on content only."""
        return dict(sorted(self.rules.items()))
