"""StringGame conditions on the string's shape: its length and its first and last letters.

Each of these holds for a sizeable share of random strings of 6-20 letters, some for about half
(the tests keep every condition's share within bounds); the library pairs the broad ones with
other conditions to keep them selective.
"""

import math

from rulebench.inferential.tasks.stringgame.rules import letters as lt
from rulebench.inferential.tasks.stringgame.rules.conditions import (
    HAS_CONSONANT,
    HAS_VOWEL,
    NONEMPTY,
    Condition,
    condition,
)


def _first(s: str) -> int:
    """Alphabet position of the first letter (0 for the empty string)."""
    return lt.position(s[:1])


def _last(s: str) -> int:
    """Alphabet position of the last letter (0 for the empty string)."""
    return lt.position(s[-1:])


def _is_prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, math.isqrt(n) + 1))


def _is_square(n: int) -> bool:
    return math.isqrt(n) ** 2 == n


# Tables read best one condition to a line or two; the formatter would give each six.
# fmt: off
LENGTH: tuple[Condition, ...] = (
    condition("len_even", "the length of the string is even", "len(s) mod 2 = 0",
              lambda s: len(s) % 2 == 0),
    condition("len_odd", "the length of the string is odd", "len(s) mod 2 = 1",
              lambda s: len(s) % 2 == 1),
    condition("len_lt10", "the string has fewer than 10 letters", "len(s) < 10",
              lambda s: len(s) < 10),
    condition("len_gt15", "the string has more than 15 letters", "len(s) > 15",
              lambda s: len(s) > 15),
    condition("len_10_14", "the string has at least 10 and at most 14 letters",
              "10 ≤ len(s) ≤ 14", lambda s: 10 <= len(s) <= 14),
    condition("len_div3", "the length of the string is a multiple of 3", "len(s) mod 3 = 0",
              lambda s: len(s) % 3 == 0),
    condition("len_div4", "the length of the string is a multiple of 4", "len(s) mod 4 = 0",
              lambda s: len(s) % 4 == 0),
    condition("len_div5", "the length of the string is a multiple of 5", "len(s) mod 5 = 0",
              lambda s: len(s) % 5 == 0),
    condition("len_prime", "the length of the string is a prime number", "prime(len(s))",
              lambda s: _is_prime(len(s))),
    condition("len_square", "the length of the string is a perfect square", "square(len(s))",
              lambda s: _is_square(len(s))),
)
"""Conditions on the length alone."""

BOUNDARY: tuple[Condition, ...] = (
    condition("starts_vowel", "the string starts with a vowel", "vowel(first(s))",
              lambda s: lt.is_vowel(s[:1]), HAS_VOWEL, NONEMPTY),
    condition("ends_vowel", "the string ends with a vowel", "vowel(last(s))",
              lambda s: lt.is_vowel(s[-1:]), HAS_VOWEL, NONEMPTY),
    condition("starts_cons", "the string starts with a consonant", "consonant(first(s))",
              lambda s: lt.is_consonant(s[:1]), HAS_CONSONANT, NONEMPTY),
    condition("cons_to_vowel", "the string starts with a consonant and ends with a vowel",
              "consonant(first(s)) ∧ vowel(last(s))",
              lambda s: lt.is_consonant(s[:1]) and lt.is_vowel(s[-1:]),
              HAS_VOWEL, HAS_CONSONANT, NONEMPTY),
    condition("vowel_to_cons", "the string starts with a vowel and ends with a consonant",
              "vowel(first(s)) ∧ consonant(last(s))",
              lambda s: lt.is_vowel(s[:1]) and lt.is_consonant(s[-1:]),
              HAS_VOWEL, HAS_CONSONANT, NONEMPTY),
    condition("first_is_last", "the first letter of the string is the same as its last letter",
              "first(s) = last(s)", lambda s: s != "" and s[0] == s[-1], NONEMPTY),
    condition("first_before_last",
              "the first letter comes earlier in the alphabet than the last letter",
              "pos(first(s)) < pos(last(s))", lambda s: _first(s) < _last(s), NONEMPTY),
    condition("first_repeats", "the first letter of the string appears again later in it",
              "(∃i ≥ 1: s[i] = first(s))", lambda s: s != "" and s[0] in s[1:], NONEMPTY),
    condition("last_repeats", "the last letter of the string also appears earlier in it",
              "(∃i < len(s) - 1: s[i] = last(s))", lambda s: s != "" and s[-1] in s[:-1],
              NONEMPTY),
    condition("starts_early", "the first letter comes before G in the alphabet",
              "pos(first(s)) < pos('G')", lambda s: 0 < _first(s) < lt.position("G"), NONEMPTY),
    condition("ends_late", "the last letter comes after T in the alphabet",
              "pos(last(s)) > pos('T')", lambda s: _last(s) > lt.position("T"), NONEMPTY),
    condition("second_vowel", "the second letter of the string is a vowel", "vowel(s[1])",
              lambda s: lt.is_vowel(s[1:2]), HAS_VOWEL, NONEMPTY),
    condition("first_is_min",
              "no letter of the string comes before its first letter in the alphabet",
              "(∀i: pos(s[i]) ≥ pos(first(s)))", lambda s: s != "" and min(s) == s[0], NONEMPTY),
    condition("last_is_max",
              "no letter of the string comes after its last letter in the alphabet",
              "(∀i: pos(s[i]) ≤ pos(last(s)))", lambda s: s != "" and max(s) == s[-1], NONEMPTY),
    condition("first3_up",
              "the first three letters of the string are in strictly increasing alphabetical "
              "order", "pos(s[0]) < pos(s[1]) < pos(s[2])",
              lambda s: len(s) >= 3 and s[0] < s[1] < s[2], NONEMPTY),
    condition("ends_far",
              "the first and last letters are more than 15 places apart in the alphabet",
              "|pos(first(s)) - pos(last(s))| > 15",
              lambda s: s != "" and abs(_first(s) - _last(s)) > 15, NONEMPTY),
    condition("ends_sum_gt30",
              "the alphabet positions of the first and last letters add up to more than 30",
              "pos(first(s)) + pos(last(s)) > 30", lambda s: _first(s) + _last(s) > 30,
              NONEMPTY),
    condition("first_even_pos",
              "the first letter has an even alphabet position (B, D, F and so on)",
              "pos(first(s)) mod 2 = 0", lambda s: s != "" and _first(s) % 2 == 0, NONEMPTY),
)
"""Conditions on the first and last letters."""
# fmt: on
