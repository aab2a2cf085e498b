"""The "if" half of a StringGame rule: a condition on an uppercase string, and its builders.

A condition states which facts it guarantees when it holds (`ensures`: "has:E", "has_vowel",
...), so the library can pair it only with outputs that are defined under it: an output such as
"the index of the first E" is then never computed on a string without an E.
"""

from collections.abc import Callable
from typing import NamedTuple

HAS_VOWEL = "has_vowel"
HAS_CONSONANT = "has_consonant"
NONEMPTY = "nonempty"

_TIMES = {1: "once", 2: "twice", 3: "three times"}


def has(letter: str) -> str:
    """The fact "the string contains `letter`"."""
    return f"has:{letter}"


def twice(letter: str) -> str:
    """The fact "`letter` occurs at least twice"."""
    return f"twice:{letter}"


class Condition(NamedTuple):
    """The condition of a rule: its text in both forms, its test and what it guarantees."""

    key: str
    nl: str
    """Clause that follows "If " in the rule text, e.g. "the string starts with a vowel"."""
    fol: str
    holds: Callable[[str], bool]
    ensures: frozenset[str]
    """Facts true of every string the condition holds for (see `has`, HAS_VOWEL, ...)."""


def condition(
    key: str, nl: str, fol: str, holds: Callable[[str], bool], *ensures: str
) -> Condition:
    """Build a Condition; `ensures` lists the facts it guarantees."""
    return Condition(key, nl, fol, holds, frozenset(ensures))


def both(first: Condition, second: Condition) -> Condition:
    """The conjunction of two conditions (texts joined with "and", facts united)."""
    return Condition(
        f"{first.key}&{second.key}",
        f"{first.nl} and {second.nl}",
        f"{first.fol} ∧ {second.fol}",
        lambda s: first.holds(s) and second.holds(s),
        first.ensures | second.ensures,
    )


def starts_with(letter: str) -> Condition:
    """The string's first letter is `letter`."""
    return condition(
        f"starts:{letter}",
        f'the string starts with the letter "{letter}"',
        f"first(s) = '{letter}'",
        lambda s: s[:1] == letter,
        has(letter),
        NONEMPTY,
    )


def ends_with(letter: str) -> Condition:
    """The string's last letter is `letter`."""
    return condition(
        f"ends:{letter}",
        f'the string ends with the letter "{letter}"',
        f"last(s) = '{letter}'",
        lambda s: s[-1:] == letter,
        has(letter),
        NONEMPTY,
    )


def contains(letter: str) -> Condition:
    """The string contains `letter` at least once."""
    return condition(
        f"has:{letter}",
        f'the string contains the letter "{letter}"',
        f"count(s, '{letter}') ≥ 1",
        lambda s: letter in s,
        has(letter),
        NONEMPTY,
    )


def occurs_exactly(letter: str, times: int) -> Condition:
    """`letter` occurs exactly `times` (1-3) times."""
    facts = [has(letter), NONEMPTY] + ([twice(letter)] if times >= 2 else [])
    return condition(
        f"exactly{times}:{letter}",
        f'the letter "{letter}" appears exactly {_TIMES[times]} in the string',
        f"count(s, '{letter}') = {times}",
        lambda s: s.count(letter) == times,
        *facts,
    )


def occurs_at_least(letter: str, times: int) -> Condition:
    """`letter` occurs at least `times` (2-3) times."""
    return condition(
        f"atleast{times}:{letter}",
        f'the letter "{letter}" appears at least {_TIMES[times]} in the string',
        f"count(s, '{letter}') ≥ {times}",
        lambda s: s.count(letter) >= times,
        has(letter),
        twice(letter),
        NONEMPTY,
    )


def more_than(letter: str, other: str) -> Condition:
    """`letter` occurs more often than `other` (so `letter` occurs at least once)."""
    return condition(
        f"more:{letter}>{other}",
        f'the letter "{letter}" appears more times than the letter "{other}"',
        f"count(s, '{letter}') > count(s, '{other}')",
        lambda s: s.count(letter) > s.count(other),
        has(letter),
        NONEMPTY,
    )


def contains_both(letter: str, other: str) -> Condition:
    """The string contains both letters."""
    return condition(
        f"both:{letter}+{other}",
        f'the string contains both the letter "{letter}" and the letter "{other}"',
        f"count(s, '{letter}') ≥ 1 ∧ count(s, '{other}') ≥ 1",
        lambda s: letter in s and other in s,
        has(letter),
        has(other),
        NONEMPTY,
    )


def contains_without(letter: str, other: str) -> Condition:
    """The string contains `letter` but not `other`."""
    return condition(
        f"without:{letter}-{other}",
        f'the string contains the letter "{letter}" but not the letter "{other}"',
        f"count(s, '{letter}') ≥ 1 ∧ count(s, '{other}') = 0",
        lambda s: letter in s and other not in s,
        has(letter),
        NONEMPTY,
    )
