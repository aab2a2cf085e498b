"""Story sentences for kinship facts and the question that follows them: our own templates.

Every template states exactly one fact, "{b} is {a}'s {rel}", names both people and uses the
relation word itself (paraphrases vary the sentence, never the relation), so a sentence can be
checked against its fact and never says anything the family tree does not.
"""

import random

from rulebench.inferential.tasks.kinship.relations import RELATION_KIND, Gender

Fact = tuple[str, str, str]

_GENERIC: tuple[str, ...] = (
    "{b} is {a}'s {rel}.",
    "{a}'s {rel} is named {b}.",
    "{a} has {art} {rel} called {b}.",
    "{a} spent the afternoon with {ap} {rel}, {b}.",
    "{a} phoned {ap} {rel} {b} to share some news.",
    "{b}, {a}'s {rel}, came over for dinner on Sunday.",
    "{a} and {ap} {rel} {b} went for a long walk by the river.",
)

_SPECIFIC: dict[str, tuple[str, ...]] = {
    "parent": (
        "{a} asked {ap} {rel} {b} for advice about a new job.",
        "{a} helped {ap} {rel} {b} repaint the kitchen.",
    ),
    "child": (
        "{a} was proud of {ap} {rel} {b} after the school concert.",
        "{a} drove {ap} {rel} {b} to football practice.",
    ),
    "sibling": (
        "{a} and {ap} {rel} {b} argued over the last slice of pie.",
        "{a} borrowed a bicycle from {ap} {rel} {b}.",
    ),
    "spouse": (
        "{a} and {ap} {rel} {b} celebrated their anniversary at a quiet restaurant.",
        "{a} planted tomatoes in the garden with {ap} {rel} {b}.",
    ),
    "grandparent": (
        "{a} loves hearing old stories from {ap} {rel} {b}.",
        "{a} visited {ap} {rel} {b} during the summer holidays.",
    ),
    "grandchild": (
        "{a} took {ap} {rel} {b} to the zoo.",
        "{a} knitted a scarf for {ap} {rel} {b}.",
    ),
    "pibling": (
        "{a} went fishing with {ap} {rel} {b} at the lake.",
        "{a} got a birthday card from {ap} {rel} {b}.",
    ),
}


def templates(relation: str) -> tuple[str, ...]:
    """Every paraphrase available for a story relation."""
    return _GENERIC + _SPECIFIC[RELATION_KIND[relation]]


def render_fact(fact: Fact, genders: dict[str, Gender], rng: random.Random) -> str:
    """One sentence stating `fact`, in a paraphrase drawn from `rng`."""
    a, relation, b = fact
    template = rng.choice(templates(relation))
    return template.format(
        a=a,
        b=b,
        rel=relation,
        art="an" if relation[0] in "aeiou" else "a",
        ap="his" if genders[a] == "male" else "her",
    )


def render_question(story: list[str], head: str, tail: str) -> str:
    """The story, a blank line, then the query: asks what `tail` is to `head`."""
    return f"{' '.join(story)}\n\nWho is {tail} to {head}?"
