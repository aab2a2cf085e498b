"""Kinship vocabulary and the composition facts that give a relation chain its stated conclusion.

Convention used throughout the kinship task: a fact `(a, r, b)` and an edge `a -r-> b` both mean
"b is a's r". A chain `A -R1-> B -R2-> C` therefore says "B is A's R1, C is B's R2", and its
conclusion names what the chain's last person is to its first.

The composition facts (row R1, column R2 -> result) are the ones the spec lists for CLUTRR: they are
the semantics a golden rule states. They are not how answers are computed (the family tree does
that); a chain is kept only when both agree.
"""

import functools
from typing import Literal

from rulebench.inferential.vocabulary import KINSHIP_CF_LABELS, KINSHIP_LABELS

Gender = Literal["male", "female"]

EDGE_RELATIONS: tuple[str, ...] = (
    "father",
    "mother",
    "son",
    "daughter",
    "brother",
    "sister",
    "husband",
    "wife",
    "grandfather",
    "grandmother",
    "grandson",
    "granddaughter",
    "uncle",
    "aunt",
)
"""The 14 relations a story states."""

ANSWER_LABELS = KINSHIP_LABELS
"""The 18 relations a factual answer can be."""
CF_LABELS = KINSHIP_CF_LABELS
"""The 20 labels a counterfactual conclusion can be (the clutrr-cf answer set)."""

_MALE = frozenset(
    {
        "father",
        "son",
        "brother",
        "husband",
        "grandfather",
        "grandson",
        "uncle",
        "nephew",
        "son-in-law",
        "father-in-law",
        "stepson",
    }
)

RELATION_GENDER: dict[str, Gender] = {
    label: ("male" if label in _MALE else "female") for label in (*CF_LABELS, "husband", "wife")
}
"""Every relation word names its person's gender: the one a rule's conclusion must agree with."""

# Row groups: every relation in the first tuple composes with the column relation to the result.
_ROWS: tuple[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], ...] = (
    (
        ("father", "mother"),
        (
            ("brother", "uncle"),
            ("sister", "aunt"),
            ("father", "grandfather"),
            ("mother", "grandmother"),
            ("son", "brother"),
            ("daughter", "sister"),
        ),
    ),
    (
        ("son", "daughter"),
        (
            ("son", "grandson"),
            ("daughter", "granddaughter"),
            ("brother", "son"),
            ("sister", "daughter"),
            ("grandfather", "father"),
            ("grandmother", "mother"),
            ("uncle", "brother"),
            ("aunt", "sister"),
        ),
    ),
    (("son",), (("wife", "daughter-in-law"),)),
    (("daughter",), (("husband", "son-in-law"),)),
    (
        ("brother", "sister"),
        (
            ("brother", "brother"),
            ("sister", "sister"),
            ("father", "father"),
            ("mother", "mother"),
            ("grandfather", "grandfather"),
            ("grandmother", "grandmother"),
            ("son", "nephew"),
            ("daughter", "niece"),
        ),
    ),
    (
        ("husband", "wife"),
        (
            ("son", "son"),
            ("daughter", "daughter"),
            ("grandson", "grandson"),
            ("granddaughter", "granddaughter"),
            ("father", "father-in-law"),
            ("mother", "mother-in-law"),
        ),
    ),
    (("grandson", "granddaughter"), (("brother", "grandson"), ("sister", "granddaughter"))),
)

COMPOSITION: dict[tuple[str, str], str] = {
    (first, second): result
    for firsts, columns in _ROWS
    for first in firsts
    for second, result in columns
}
"""(R1, R2) -> what C is to A when B is A's R1 and C is B's R2."""


def _decompositions() -> dict[str, tuple[tuple[str, str], ...]]:
    found: dict[str, list[tuple[str, str]]] = {}
    for pair, result in COMPOSITION.items():
        found.setdefault(result, []).append(pair)
    return {result: tuple(pairs) for result, pairs in found.items()}


DECOMPOSITIONS: dict[str, tuple[tuple[str, str], ...]] = _decompositions()
"""result -> the (R1, R2) pairs that compose to it: how a chain grows one hop at a time."""


@functools.lru_cache(maxsize=1 << 16)
def _reductions(chain: tuple[str, ...]) -> frozenset[str]:
    if len(chain) == 1:
        return frozenset(chain)
    results: set[str] = set()
    for i in range(len(chain) - 1):
        merged = COMPOSITION.get((chain[i], chain[i + 1]))
        if merged is not None:
            results |= _reductions((*chain[:i], merged, *chain[i + 2 :]))
    return frozenset(results)


def compose_chain(relations: tuple[str, ...]) -> str | None:
    """The single relation the composition facts reduce a chain to, or None.

    Adjacent pairs may be merged in any order. None when no order reduces the chain to one
    relation, or when different orders disagree: the table then states nothing unambiguous, and
    a rule for such a chain would be a guess.
    """
    results = _reductions(relations)
    if len(results) != 1:
        return None
    return next(iter(results))


def converse(relation: str, gender: Gender) -> str | None:
    """The relation a is to b when b is a's `relation` and a has `gender`; None if not an edge.

    Uncle and aunt have no converse among the story's relations (nephew and niece are not edges).
    """
    pairs = {
        "parent": ("son", "daughter"),
        "child": ("father", "mother"),
        "sibling": ("brother", "sister"),
        "spouse": ("husband", "wife"),
        "grandparent": ("grandson", "granddaughter"),
        "grandchild": ("grandfather", "grandmother"),
    }
    kind = RELATION_KIND.get(relation)
    if kind is None or kind not in pairs:
        return None
    male, female = pairs[kind]
    return male if gender == "male" else female


RELATION_KIND: dict[str, str] = {
    "father": "parent",
    "mother": "parent",
    "son": "child",
    "daughter": "child",
    "brother": "sibling",
    "sister": "sibling",
    "husband": "spouse",
    "wife": "spouse",
    "grandfather": "grandparent",
    "grandmother": "grandparent",
    "grandson": "grandchild",
    "granddaughter": "grandchild",
    "uncle": "pibling",
    "aunt": "pibling",
}
