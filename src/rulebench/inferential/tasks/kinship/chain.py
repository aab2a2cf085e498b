"""Query chains drawn from a family tree: the facts a kinship story states and its true answer.

A chain grows the way CLUTRR's stories do, backwards from its answer: start from a pair of people
and the relation one is to the other, then repeatedly split one edge `a -r-> b` into two edges
`a -r1-> m -r2-> b` through a tree member `m`, where (r1, r2) composes to r. The chain is kept
only if the answer read from the tree equals what the composition facts state for the chain, and
the rule stated for the chain holds for every person and path in that tree (some compositions are
ambiguous: a son's grandfather may be one's father or one's father-in-law).
"""

import random
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from rulebench.core.errors import DataError
from rulebench.inferential.tasks.kinship.relations import (
    ANSWER_LABELS,
    DECOMPOSITIONS,
    EDGE_RELATIONS,
    Gender,
    compose_chain,
)
from rulebench.inferential.tasks.kinship.tree import (
    FamilyTree,
    KinIndex,
    build_tree,
    kin_index,
    tree_label,
)

Fact = tuple[str, str, str]
"""(a, relation, b): b is a's relation."""

PatternFilter = Callable[[tuple[str, ...]], bool]
"""Says whether a chain's relation pattern may be used (how splits keep patterns apart)."""

_CHAINS_PER_TREE = 12
_MAX_TREES = 2000
_PATH_BUDGET = 20_000
"""Path steps one rule check may take; a pattern with more paths than this is skipped as unsure."""


class Instance(BaseModel):
    """A drawn query: the tree, the chain from head to tail, extra true facts, the answer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tree: FamilyTree
    chain: tuple[Fact, ...]
    """Edges in chain order: chain[0] starts at the head, chain[-1] ends at the tail."""
    distractors: tuple[Fact, ...]
    """True facts that each add one person not on the chain (never a shortcut along it)."""
    label: str
    """What the tail is to the head, read from the tree (one of the 18 answer labels)."""

    @property
    def head(self) -> str:
        """The person the question asks about the tail's relation to."""
        return self.chain[0][0]

    @property
    def tail(self) -> str:
        """The person whose relation to the head is asked."""
        return self.chain[-1][2]

    @property
    def relations(self) -> tuple[str, ...]:
        """The chain's relation pattern."""
        return tuple(relation for _, relation, _ in self.chain)

    def gender(self, name: str) -> Gender:
        """A member's gender, from the tree."""
        return self.tree.people[name].gender


def draw_instance(
    rng: random.Random, hops: int, distractors: int = 0, accept: PatternFilter | None = None
) -> Instance:
    """A chain of exactly `hops` edges in a fresh random tree, with its checked answer.

    Raises:
        DataError: no acceptable chain was found in `_MAX_TREES` trees (a filter too strict).
    """
    for _ in range(_MAX_TREES):
        tree = build_tree(rng)
        index = kin_index(tree)
        for _ in range(_CHAINS_PER_TREE):
            chain = _grow_chain(index, rng, hops)
            if chain is None:
                continue
            label = _checked_label(tree, index, chain, accept)
            if label is not None:
                extra = _draw_distractors(index, rng, chain, distractors)
                return Instance(tree=tree, chain=tuple(chain), distractors=extra, label=label)
    raise DataError(f"kinship: no valid {hops}-hop chain found in {_MAX_TREES} random trees")


def draw_from_one_tree(
    rng: random.Random, hop_range: tuple[int, int], count: int, accept: PatternFilter | None
) -> list[Instance]:
    """Up to `count` checked chains (no distractors) from one fresh tree, for extra rules.

    Cheaper than `draw_instance` per chain (one tree serves many), which matters when a small
    task needs dozens of extra patterns; may return fewer, or none, from a small tree.
    """
    tree = build_tree(rng)
    index = kin_index(tree)
    found: list[Instance] = []
    for _ in range(count * 3):
        chain = _grow_chain(index, rng, rng.randint(*hop_range))
        label = None if chain is None else _checked_label(tree, index, chain, accept)
        if chain is not None and label is not None:
            found.append(Instance(tree=tree, chain=tuple(chain), distractors=(), label=label))
            if len(found) == count:
                break
    return found


def _grow_chain(index: KinIndex, rng: random.Random, hops: int) -> list[Fact] | None:
    head = rng.choice(list(index))
    starts = [(head, w, t) for w in ANSWER_LABELS for t in index[head].get(w, ())]
    if not starts:
        return None
    chain = [rng.choice(starts)]
    while len(chain) < hops:
        options = _expansions(index, chain)
        if not options:
            return None
        at, first, second = rng.choice(options)
        chain[at : at + 1] = [first, second]
    if any(relation not in EDGE_RELATIONS for _, relation, _ in chain):
        return None
    return chain


def _expansions(index: KinIndex, chain: list[Fact]) -> list[tuple[int, Fact, Fact]]:
    """Every way to split one edge through a member not yet on the chain."""
    used = {person for a, _, b in chain for person in (a, b)}
    options: list[tuple[int, Fact, Fact]] = []
    for at, (a, relation, b) in enumerate(chain):
        for first, second in DECOMPOSITIONS.get(relation, ()):
            for middle in index[a].get(first, ()):
                if middle not in used and b in index[middle].get(second, ()):
                    options.append((at, (a, first, middle), (middle, second, b)))
    return options


def _checked_label(
    tree: FamilyTree, index: KinIndex, chain: list[Fact], accept: PatternFilter | None
) -> str | None:
    """The tree's answer if the stated rule agrees with it and holds in the whole tree."""
    relations = tuple(relation for _, relation, _ in chain)
    head, tail = chain[0][0], chain[-1][2]
    label = tree_label(index, head, tail)
    if label is None or compose_chain(relations) != label:
        return None
    if accept is not None and not accept(relations):
        return None
    gender = tree.people[head].gender
    return label if rule_holds(tree, index, relations, gender) else None


class _Budget:
    """Counts path steps so one pathological pattern cannot stall generation."""

    def __init__(self, steps: int) -> None:
        self.steps = steps

    def spend(self) -> bool:
        self.steps -= 1
        return self.steps >= 0


def rule_holds(
    tree: FamilyTree, index: KinIndex, relations: tuple[str, ...], gender: Gender
) -> bool:
    """Whether the rule the composition facts state for a pattern is true throughout the tree.

    Every path of distinct people that follows the pattern from any member of the head's gender
    must end at someone who is exactly the stated relation of its start.
    """
    label = compose_chain(relations)
    if label is None:
        return False
    budget = _Budget(_PATH_BUDGET)
    return all(
        _paths_agree(index, relations, (name,), label, budget)
        for name, person in tree.people.items()
        if person.gender == gender
    )


def _paths_agree(
    index: KinIndex, relations: tuple[str, ...], path: tuple[str, ...], label: str, budget: _Budget
) -> bool:
    depth = len(path) - 1
    if depth == len(relations):
        return tree_label(index, path[0], path[-1]) == label
    if not budget.spend():
        return False
    return all(
        _paths_agree(index, relations, (*path, following), label, budget)
        for following in index[path[-1]].get(relations[depth], ())
        if following not in path
    )


def _draw_distractors(
    index: KinIndex, rng: random.Random, chain: list[Fact], count: int
) -> tuple[Fact, ...]:
    """Up to `count` true facts, each linking one new person to one chain member.

    A new person appears in one fact only, so distractors never connect two chain members and
    cannot open a shorter route from head to tail.
    """
    members = [chain[0][0], *(b for _, _, b in chain)]
    on_chain = set(members)
    options: list[tuple[str, Fact]] = []
    for member in members:
        for relation in EDGE_RELATIONS:
            for other in index[member].get(relation, ()):
                if other not in on_chain:
                    options.append((other, (member, relation, other)))
                    back = [w for w in EDGE_RELATIONS if member in index[other].get(w, ())]
                    options.extend((other, (other, w, member)) for w in back)
    chosen: list[Fact] = []
    while options and len(chosen) < count:
        newcomer, fact = rng.choice(options)
        chosen.append(fact)
        options = [option for option in options if option[0] != newcomer]
    return tuple(chosen)
