"""Reading a chain of relations (`his sister's son`, `the husband of Ann's aunt`) as one relation.

A reply that describes a relation as a chain does not state the chain's last relation, nor any
other link in it: "Clarence is Michael's aunt's husband" answers neither aunt nor husband. Robust
mode rewrites each chain to the label the dataset's composition facts reduce it to (`sister's
son` -> nephew) or, when they reduce it to no single label, to `UNLISTED`, which is no label.

The result is written in braces (`{nephew}`): it is what the reply describes, not a label it
states. An answer marker or the last-label fallback reads it ("Answer: Ann's sister's son" is
nephew), but it is no stated conclusion: in clutrr-cf a reply often describes the chain and then
applies a counterfactual rule ("Finn is Dora's brother's son, so by rule 1 he is her stepson"),
and the factual composition must not override the label the rule gives.

"aunt's husband" stays unlisted on purpose: our generator counts only blood uncles (a parent's
brother; see `tasks/kinship/tree.py`), CLUTRR's composition facts have no aunt row, and so
"uncle by marriage" is not what either dataset means by uncle.
"""

import re

from rulebench.inferential.tasks.kinship.relations import compose_chain
from rulebench.inferential.vocabulary import KINSHIP_CF_LABELS as CF_LABELS

UNLISTED = "unlisted-relation"
"""What a chain becomes when it reduces to no single label: a word that is no label."""

RELATION_WORDS: tuple[str, ...] = (
    *CF_LABELS,
    "husband",
    "wife",
    "spouse",
    "partner",
    "parent",
    "child",
    "sibling",
    "cousin",
    "brother-in-law",
    "sister-in-law",
    "stepfather",
    "stepmother",
    "stepbrother",
    "stepsister",
    "grandparent",
    "grandchild",
    "boyfriend",
    "girlfriend",
    "fiance",
    "fiancee",
    "friend",
)
"""Words that can be a link of a chain; a chain with a link outside the composition facts (a
cousin, a friend) is unlisted rather than read as one of its labels."""

MAX_LINKS = 6
"""Longer chains are unlisted without composing them: composition tries every merge order, which
grows exponentially in a looping reply (`son's son's son's ...`)."""

_POSSESSIVE = r"'s\s+"
_DETERMINER = r"(?:the|a|an|his|her|their|[a-z]+'s)"


def relation_word_pattern(words: tuple[str, ...]) -> str:
    """A regex alternative for any of `words` as a whole word (hyphen-glued words excluded)."""
    alternatives = "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))
    return rf"(?<![a-z\-])(?:{alternatives})(?![a-z\-])"


_RELATION = relation_word_pattern(RELATION_WORDS)
_CHAIN = re.compile(rf"{_RELATION}(?:(?:{_POSSESSIVE}|\s+of\s+(?:{_DETERMINER}\s+)?){_RELATION})+")
_TOKEN = re.compile(r"[a-z][a-z\-]*(?:'s)?")
_PRONOUNS = frozenset({"his", "her", "their"})


def _links(chain: str) -> tuple[tuple[str, ...], str | None]:
    """The chain's relations from its owner outward, and the owner an `of` chain names, if any.

    `of` binds looser than `'s`: "the son of Ann's sister's husband" is the son of (Ann's
    sister's husband), so its links are sister, husband, son and its owner is ann.
    """
    groups: list[list[str]] = [[]]
    owner = None
    for token in _TOKEN.findall(chain):
        word = token.removesuffix("'s")
        if token == "of":
            groups.append([])
        elif word in RELATION_WORDS:
            groups[-1].append(word)
        elif word in _PRONOUNS or token != word:
            owner = word
    links = tuple(link for group in reversed(groups) for link in group)
    return links, (owner if len(groups) > 1 else None)


def _reduce(match: re.Match[str]) -> str:
    links, owner = _links(match.group())
    label = compose_chain(links) if len(links) <= MAX_LINKS else None
    reduced = "{" + (label if label in CF_LABELS else UNLISTED) + "}"
    return f"{reduced} of {owner}" if owner else reduced


def compose_relation_chains(text: str) -> str:
    """Fix: a chain such as `aunt's husband` reads as its last label in paper mode (aunt).

    Each chain of relations joined by `'s` or `of` becomes the one label the composition facts
    reduce it to, in braces (`Ann's sister's son` -> `Ann's {nephew}`, `the son of her sister`
    -> `the {nephew} of her`), else `{UNLISTED}`. Expects lowercase text with `'s` kept.
    """
    return _CHAIN.sub(_reduce, text)
