"""Letter facts the StringGame rules are written in: vowels, alphabet positions, runs.

Every helper is total on any string of uppercase letters, the empty string included, so a rule
built from them can never raise; where a value does not exist (no vowel to index) the helper
returns -1 and the rule library guarantees, through its conditions, that it is never asked.
"""

import itertools
from collections import Counter
from collections.abc import Callable

VOWELS = frozenset("AEIOU")
"""Y counts as a consonant, as in the rule texts' convention (see CONVENTIONS)."""

CONVENTIONS = (
    "Vowels are A, E, I, O and U; every other letter, Y included, is a consonant. "
    "Alphabet positions count A as 1 and Z as 26. "
    "In the logical form of a rule, s is the string and s[i] its letter at index i, from 0."
)
"""What a prompt can show beside StringGame rules so that "vowel" and indices are unambiguous."""


def position(letter: str) -> int:
    """Alphabet position of one uppercase letter (A = 1, Z = 26); 0 for the empty string."""
    return ord(letter) - ord("A") + 1 if letter else 0


def is_vowel(letter: str) -> bool:
    """Whether a single letter is one of A, E, I, O, U."""
    return letter in VOWELS


def is_consonant(letter: str) -> bool:
    """Whether a single letter is a letter other than a vowel (the empty string is neither)."""
    return len(letter) == 1 and letter not in VOWELS


def count_vowels(s: str) -> int:
    """Number of vowels, counting repeats."""
    return sum(1 for c in s if c in VOWELS)


def count_consonants(s: str) -> int:
    """Number of consonants, counting repeats."""
    return len(s) - count_vowels(s)


def position_sum(s: str) -> int:
    """Sum of the alphabet positions of all letters."""
    return sum(position(c) for c in s)


def first_index(s: str, test: Callable[[str], bool]) -> int:
    """0-based index of the first letter passing `test`, -1 when none does."""
    return next((i for i, c in enumerate(s) if test(c)), -1)


def last_index(s: str, test: Callable[[str], bool]) -> int:
    """0-based index of the last letter passing `test`, -1 when none does."""
    return next((i for i in range(len(s) - 1, -1, -1) if test(s[i])), -1)


def longest_run(s: str, test: Callable[[str], bool]) -> int:
    """Length of the longest stretch of adjacent letters that all pass `test` (0 if none)."""
    best = current = 0
    for c in s:
        current = current + 1 if test(c) else 0
        best = max(best, current)
    return best


def count_pairs(s: str, test: Callable[[str, str], bool]) -> int:
    """Number of adjacent letter pairs (s[i], s[i+1]) for which `test` holds."""
    return sum(1 for a, b in itertools.pairwise(s) if test(a, b))


def is_successor(a: str, b: str) -> bool:
    """Whether b comes right after a in the alphabet (as in "AB")."""
    return position(b) == position(a) + 1


def has_three_palindrome(s: str) -> bool:
    """Whether some letter reappears exactly two places later ("ABA", "CCC")."""
    return any(s[i] == s[i + 2] for i in range(len(s) - 2))


def letter_counts(s: str) -> Counter[str]:
    """How many times each letter occurs."""
    return Counter(s)
