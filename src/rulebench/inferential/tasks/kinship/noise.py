"""Noise rules for a kinship prompt that do not depend on how many samples a run generates.

Every sample draws its noise from its own candidates: the first `NOISE_CANDIDATES` rules of
each kind (factual, counterfactual) in one seeded stream of extra chains that do not apply to
its story. The stream depends on the seed and the hop range alone, so generating more samples
(another `--per-group`) may lengthen it but never changes an existing sample's candidates, and
so never changes its prompt.
"""

import random
from collections.abc import Callable

from rulebench.core.errors import DataError
from rulebench.inferential.tasks.kinship.chain import Instance, PatternFilter, draw_from_one_tree
from rulebench.inferential.tasks.kinship.oracle import FactBase, RuleIndex
from rulebench.inferential.tasks.kinship.rules import MAX_HOPS, KinRule, counterfactual_of, rule_id

NOISE_CANDIDATES = 40
"""Candidates per kind and sample: more than the 29 noise rules of the "all" setting."""
_PER_TREE = 6
_STALE_BATCHES = 20
_MAX_BATCHES = 2000


class NoiseStream:
    """A seeded, growing list of extra rules, each factual chain followed by its twin."""

    def __init__(
        self,
        rng: random.Random,
        hop_range: tuple[int, int],
        accept: PatternFilter | None,
        rule_of: Callable[[Instance], KinRule],
    ) -> None:
        self._rng = rng
        self._hop_range = hop_range
        self._accept = accept
        self._rule_of = rule_of
        self._widen = False
        self._stale = 0
        self.rules: list[KinRule] = []
        self._ids: set[str] = set()

    def grow(self) -> list[KinRule]:
        """Draw one more batch; returns the rules it added (none when the batch was all known).

        A narrow hop range runs out of new patterns: after many batches without one, longer
        chains are allowed too (they still make valid noise).
        """
        hops = (2, MAX_HOPS) if self._widen else self._hop_range
        added = []
        for instance in draw_from_one_tree(self._rng, hops, _PER_TREE, self._accept):
            factual = self._rule_of(instance)
            for rule in (factual, counterfactual_of(factual)):
                key = rule_id(rule)
                if key not in self._ids:
                    self._ids.add(key)
                    self.rules.append(rule)
                    added.append(rule)
        self._stale = 0 if added else self._stale + 1
        self._widen = self._widen or self._stale >= _STALE_BATCHES
        return added

    def candidates(
        self, story: FactBase, own: set[str], is_counterfactual: Callable[[KinRule], bool]
    ) -> tuple[list[str], list[str]]:
        """(factual, counterfactual) candidate ids for one story, in stream order.

        A candidate does not apply to the story and is not one of the sample's `own` rules.
        """
        found: tuple[list[str], list[str]] = ([], [])
        position, batches = 0, 0
        while any(len(kind) < NOISE_CANDIDATES for kind in found):
            if position == len(self.rules):
                if batches >= _MAX_BATCHES:
                    raise DataError("kinship: could not find enough distinct noise rules")
                self.grow()
                batches += 1
                continue
            chunk = {rule_id(rule): rule for rule in self.rules[position:]}
            position = len(self.rules)
            applying = set(RuleIndex(chunk).applicable(story))
            for key, rule in chunk.items():
                kind = found[is_counterfactual(rule)]
                if key not in own and key not in applying and len(kind) < NOISE_CANDIDATES:
                    kind.append(key)
        return found
