"""The "then" half of a StringGame rule: a number computed from the string.

Every computation is total (no exception on any string of uppercase letters); the few that only
make sense when something is present (the index of the first "E") name that fact in `needs`, and
the library pairs them only with conditions that ensure it.
"""

from collections.abc import Callable
from typing import NamedTuple

from rulebench.inferential.tasks.stringgame.rules import letters as lt
from rulebench.inferential.tasks.stringgame.rules.conditions import (
    HAS_CONSONANT,
    HAS_VOWEL,
    has,
    twice,
)


class Output(NamedTuple):
    """What a rule outputs: its text in both forms, its computation and what it needs."""

    key: str
    nl: str
    """Noun phrase that follows "then output " in the rule text."""
    fol: str
    compute: Callable[[str], int]
    needs: frozenset[str] = frozenset()
    """Facts the computation relies on (a condition must ensure them)."""


def _repeated(s: str) -> int:
    return sum(1 for n in lt.letter_counts(s).values() if n > 1)


def _singles(s: str) -> int:
    return sum(1 for n in lt.letter_counts(s).values() if n == 1)


def _max_pos(s: str) -> int:
    return max((lt.position(c) for c in s), default=0)


def _min_pos(s: str) -> int:
    return min((lt.position(c) for c in s), default=0)


# Tables read best one output to a line or two; the formatter would give each six.
# fmt: off
GENERAL: tuple[Output, ...] = (
    Output("length", "the length of the string", "len(s)", len),
    Output("half_length", "the length of the string divided by 2, rounded down",
           "⌊len(s) / 2⌋", lambda s: len(s) // 2),
    Output("double_length", "twice the length of the string", "2 × len(s)",
           lambda s: 2 * len(s)),
    Output("length_mod3", "the remainder when the length of the string is divided by 3",
           "len(s) mod 3", lambda s: len(s) % 3),
    Output("vowels", "the number of vowels in the string", "count_vowels(s)", lt.count_vowels),
    Output("consonants", "the number of consonants in the string", "count_consonants(s)",
           lt.count_consonants),
    Output("twice_vowels", "twice the number of vowels in the string", "2 × count_vowels(s)",
           lambda s: 2 * lt.count_vowels(s)),
    Output("cons_minus_vowels", "the number of consonants minus the number of vowels",
           "count_consonants(s) - count_vowels(s)",
           lambda s: lt.count_consonants(s) - lt.count_vowels(s)),
    Output("vowels_times_cons", "the number of vowels multiplied by the number of consonants",
           "count_vowels(s) × count_consonants(s)",
           lambda s: lt.count_vowels(s) * lt.count_consonants(s)),
    Output("distinct", "the number of distinct letters in the string", "count_distinct(s)",
           lambda s: len(set(s))),
    Output("distinct_vowels", "the number of distinct vowels in the string",
           "count_distinct_vowels(s)", lambda s: len(lt.VOWELS.intersection(s))),
    Output("distinct_consonants", "the number of distinct consonants in the string",
           "count_distinct_consonants(s)", lambda s: len(set(s) - lt.VOWELS)),
    Output("repeated", "the number of distinct letters that appear more than once",
           "|{c : count(s, c) > 1}|", _repeated),
    Output("singles", "the number of letters that appear exactly once in the string",
           "|{c : count(s, c) = 1}|", _singles),
    Output("len_minus_distinct", "the length of the string minus the number of distinct letters",
           "len(s) - count_distinct(s)", lambda s: len(s) - len(set(s))),
    Output("max_count", "the largest number of times any single letter appears in the string",
           "max_c count(s, c)", lambda s: max(lt.letter_counts(s).values(), default=0)),
    Output("first_count", "the number of times the first letter appears in the string",
           "count(s, first(s))", lambda s: s.count(s[0]) if s else 0),
    Output("last_count", "the number of times the last letter appears in the string",
           "count(s, last(s))", lambda s: s.count(s[-1]) if s else 0),
    Output("first_half", "the number of letters from the first half of the alphabet (A to M)",
           "count_in(s, 'A'..'M')", lambda s: sum(1 for c in s if c <= "M")),
    Output("second_half", "the number of letters from the second half of the alphabet (N to Z)",
           "count_in(s, 'N'..'Z')", lambda s: sum(1 for c in s if c >= "N")),
)
"""Outputs that count letters or measure the length."""

POSITIONAL: tuple[Output, ...] = (
    Output("sum", "the sum of the alphabet positions of the string's letters (A = 1, Z = 26)",
           "sum_pos(s)", lt.position_sum),
    Output("sum_mod10",
           "the remainder when the sum of the alphabet positions of the string's letters is "
           "divided by 10",
           "sum_pos(s) mod 10", lambda s: lt.position_sum(s) % 10),
    Output("sum_mod7",
           "the remainder when the sum of the alphabet positions of the string's letters is "
           "divided by 7",
           "sum_pos(s) mod 7", lambda s: lt.position_sum(s) % 7),
    Output("first_pos", "the alphabet position of the first letter (A = 1)", "pos(first(s))",
           lambda s: lt.position(s[:1])),
    Output("last_pos", "the alphabet position of the last letter (A = 1)", "pos(last(s))",
           lambda s: lt.position(s[-1:])),
    Output("ends_diff",
           "the absolute difference between the alphabet positions of the first and last letters",
           "|pos(first(s)) - pos(last(s))|",
           lambda s: abs(lt.position(s[:1]) - lt.position(s[-1:]))),
    Output("ends_sum", "the sum of the alphabet positions of the first and last letters",
           "pos(first(s)) + pos(last(s))", lambda s: lt.position(s[:1]) + lt.position(s[-1:])),
    Output("max_pos", "the largest alphabet position among the string's letters (A = 1)",
           "max_i pos(s[i])", _max_pos),
    Output("min_pos", "the smallest alphabet position among the string's letters (A = 1)",
           "min_i pos(s[i])", _min_pos),
    Output("pos_range",
           "the difference between the largest and smallest alphabet positions among the "
           "string's letters",
           "max_i pos(s[i]) - min_i pos(s[i])", lambda s: _max_pos(s) - _min_pos(s)),
    Output("vowel_pos_sum", "the sum of the alphabet positions of the string's vowels (A = 1)",
           "Σ_{vowel(s[i])} pos(s[i])", lambda s: sum(lt.position(c) for c in s if c in lt.VOWELS)),
)
"""Outputs computed from alphabet positions (A = 1 ... Z = 26)."""

ADJACENCY: tuple[Output, ...] = (
    Output("doubles", "the number of places where a letter is immediately followed by the same "
           "letter", "|{i : s[i] = s[i+1]}|", lambda s: lt.count_pairs(s, str.__eq__)),
    Output("ascents", "the number of places where a letter is immediately followed by a letter "
           "later in the alphabet", "|{i : pos(s[i]) < pos(s[i+1])}|",
           lambda s: lt.count_pairs(s, str.__lt__)),
    Output("successors", "the number of places where a letter is immediately followed by the "
           "next letter of the alphabet", "|{i : pos(s[i+1]) = pos(s[i]) + 1}|",
           lambda s: lt.count_pairs(s, lt.is_successor)),
    Output("cons_run", "the length of the longest stretch of consonants in a row",
           "longest_run(s, consonant)", lambda s: lt.longest_run(s, lt.is_consonant)),
    Output("vowel_run", "the length of the longest stretch of vowels in a row",
           "longest_run(s, vowel)", lambda s: lt.longest_run(s, lt.is_vowel)),
    Output("first_vowel_index", "the index of the first vowel in the string (starting from 0)",
           "min{i : vowel(s[i])}", lambda s: lt.first_index(s, lt.is_vowel),
           frozenset({HAS_VOWEL})),
    Output("last_vowel_place", "the position of the last vowel in the string (counting from 1)",
           "max{i : vowel(s[i])} + 1", lambda s: lt.last_index(s, lt.is_vowel) + 1,
           frozenset({HAS_VOWEL})),
    Output("after_last_vowel", "the number of letters after the last vowel",
           "len(s) - 1 - max{i : vowel(s[i])}",
           lambda s: len(s) - 1 - lt.last_index(s, lt.is_vowel), frozenset({HAS_VOWEL})),
    Output("first_cons_index", "the index of the first consonant in the string (starting from 0)",
           "min{i : consonant(s[i])}", lambda s: lt.first_index(s, lt.is_consonant),
           frozenset({HAS_CONSONANT})),
    Output("last_cons_place",
           "the position of the last consonant in the string (counting from 1)",
           "max{i : consonant(s[i])} + 1", lambda s: lt.last_index(s, lt.is_consonant) + 1,
           frozenset({HAS_CONSONANT})),
)
"""Outputs about adjacent letters, runs and where vowels and consonants sit."""
# fmt: on


def count_of(letter: str) -> Output:
    """How many times `letter` occurs."""
    return Output(
        f"count:{letter}",
        f'the number of times the letter "{letter}" appears in the string',
        f"count(s, '{letter}')",
        lambda s: s.count(letter),
    )


def first_index_of(letter: str) -> Output:
    """0-based index of the first `letter` (needs the letter present)."""
    return Output(
        f"first_index:{letter}",
        f'the index of the first "{letter}" in the string (starting from 0)',
        f"min{{i : s[i] = '{letter}'}}",
        lambda s: s.find(letter),
        frozenset({has(letter)}),
    )


def first_place_of(letter: str) -> Output:
    """1-based position of the first `letter` (needs the letter present)."""
    return Output(
        f"first_place:{letter}",
        f'the position of the first "{letter}" in the string (counting from 1)',
        f"min{{i : s[i] = '{letter}'}} + 1",
        lambda s: s.find(letter) + 1,
        frozenset({has(letter)}),
    )


def last_index_of(letter: str) -> Output:
    """0-based index of the last `letter` (needs the letter present)."""
    return Output(
        f"last_index:{letter}",
        f'the index of the last "{letter}" in the string (starting from 0)',
        f"max{{i : s[i] = '{letter}'}}",
        lambda s: s.rfind(letter),
        frozenset({has(letter)}),
    )


def gap_of(letter: str) -> Output:
    """Letters strictly between the first and last `letter` (needs two of them)."""
    return Output(
        f"gap:{letter}",
        f'the number of letters between the first "{letter}" and the last "{letter}"',
        f"max{{i : s[i] = '{letter}'}} - min{{i : s[i] = '{letter}'}} - 1",
        lambda s: s.rfind(letter) - s.find(letter) - 1,
        frozenset({twice(letter)}),
    )
