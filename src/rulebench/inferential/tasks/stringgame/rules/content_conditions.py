"""StringGame conditions on what the string holds: vowels, letter counts, patterns, sums."""

from rulebench.inferential.tasks.stringgame.rules import letters as lt
from rulebench.inferential.tasks.stringgame.rules.conditions import (
    HAS_CONSONANT,
    HAS_VOWEL,
    NONEMPTY,
    Condition,
    condition,
    contains,
    contains_both,
    contains_without,
    ends_with,
    more_than,
    occurs_at_least,
    occurs_exactly,
    starts_with,
)


def _distinct_vowels(s: str) -> int:
    return len(lt.VOWELS.intersection(s))


def _first_half(s: str) -> int:
    """Letters from A to M."""
    return sum(1 for c in s if c <= "M")


def _has_vcv(s: str) -> bool:
    """A consonant with a vowel directly on each side."""
    return any(
        lt.is_vowel(s[i - 1]) and lt.is_consonant(s[i]) and lt.is_vowel(s[i + 1])
        for i in range(1, len(s) - 1)
    )


# Tables read best one condition to a line or two; the formatter would give each six.
# fmt: off
COMPOSITION: tuple[Condition, ...] = (
    condition("no_vowels", "the string contains no vowels", "count_vowels(s) = 0",
              lambda s: s != "" and lt.count_vowels(s) == 0, HAS_CONSONANT, NONEMPTY),
    condition("one_vowel", "the string contains exactly one vowel", "count_vowels(s) = 1",
              lambda s: lt.count_vowels(s) == 1, HAS_VOWEL, NONEMPTY),
    condition("two_vowels", "the string contains exactly two vowels", "count_vowels(s) = 2",
              lambda s: lt.count_vowels(s) == 2, HAS_VOWEL, NONEMPTY),
    condition("vowels_ge4", "the string contains at least four vowels", "count_vowels(s) ≥ 4",
              lambda s: lt.count_vowels(s) >= 4, HAS_VOWEL, NONEMPTY),
    condition("vowel_third", "at least a third of the letters of the string are vowels",
              "3 × count_vowels(s) ≥ len(s)",
              lambda s: s != "" and 3 * lt.count_vowels(s) >= len(s), HAS_VOWEL, NONEMPTY),
    condition("vowels_odd", "the number of vowels in the string is odd",
              "count_vowels(s) mod 2 = 1", lambda s: lt.count_vowels(s) % 2 == 1,
              HAS_VOWEL, NONEMPTY),
    condition("three_vowel_kinds", "the string contains at least three different vowels",
              "count_distinct_vowels(s) ≥ 3", lambda s: _distinct_vowels(s) >= 3,
              HAS_VOWEL, NONEMPTY),
    condition("all_distinct", "no letter appears more than once in the string",
              "(∀i ≠ j: s[i] ≠ s[j])", lambda s: s != "" and len(set(s)) == len(s), NONEMPTY),
    condition("some_thrice", "some letter appears at least three times in the string",
              "(∃c: count(s, c) ≥ 3)", lambda s: max(lt.letter_counts(s).values(), default=0) >= 3,
              NONEMPTY),
    condition("distinct_ge10", "the string contains at least 10 different letters",
              "count_distinct(s) ≥ 10", lambda s: len(set(s)) >= 10, NONEMPTY),
    condition("first_half_more",
              "more of the string's letters come from the first half of the alphabet (A to M) "
              "than from the second half (N to Z)", "count_in(s, 'A'..'M') > count_in(s, 'N'..'Z')",
              lambda s: 2 * _first_half(s) > len(s), NONEMPTY),
)
"""Conditions on how many vowels, consonants and distinct letters the string has."""

PATTERN: tuple[Condition, ...] = (
    condition("double", "the string contains the same letter twice in a row",
              "(∃i: s[i] = s[i+1])", lambda s: lt.count_pairs(s, str.__eq__) > 0, NONEMPTY),
    condition("vowel_pair", "the string contains two vowels in a row",
              "(∃i: vowel(s[i]) ∧ vowel(s[i+1]))", lambda s: lt.longest_run(s, lt.is_vowel) >= 2,
              HAS_VOWEL, NONEMPTY),
    condition("vcv", "the string contains a consonant with a vowel directly on each side",
              "(∃i: vowel(s[i-1]) ∧ consonant(s[i]) ∧ vowel(s[i+1]))", _has_vcv,
              HAS_VOWEL, HAS_CONSONANT, NONEMPTY),
    condition("successor", "the string contains a letter directly followed by the next letter "
              'of the alphabet (such as "AB" or "ST")', "(∃i: pos(s[i+1]) = pos(s[i]) + 1)",
              lambda s: lt.count_pairs(s, lt.is_successor) > 0, NONEMPTY),
    condition("palindrome3", 'the string contains a three-letter palindrome (such as "ABA" or '
              '"CCC")', "(∃i: s[i] = s[i+2])", lt.has_three_palindrome, NONEMPTY),
    condition("cons_run7", "the string contains at least seven consonants in a row",
              "longest_run(s, consonant) ≥ 7",
              lambda s: lt.longest_run(s, lt.is_consonant) >= 7, HAS_CONSONANT, NONEMPTY),
)
"""Conditions on adjacent letters."""

ARITHMETIC: tuple[Condition, ...] = (
    condition("sum_even", "the sum of the alphabet positions of the string's letters is even",
              "sum_pos(s) mod 2 = 0", lambda s: lt.position_sum(s) % 2 == 0),
    condition("sum_div5",
              "the sum of the alphabet positions of the string's letters is a multiple of 5",
              "sum_pos(s) mod 5 = 0", lambda s: lt.position_sum(s) % 5 == 0),
    condition("sum_div7",
              "the sum of the alphabet positions of the string's letters is a multiple of 7",
              "sum_pos(s) mod 7 = 0", lambda s: lt.position_sum(s) % 7 == 0),
    condition("sum_gt200",
              "the sum of the alphabet positions of the string's letters is greater than 200",
              "sum_pos(s) > 200", lambda s: lt.position_sum(s) > 200, NONEMPTY),
    condition("mean_gt15",
              "the average alphabet position of the string's letters is greater than 15",
              "sum_pos(s) / len(s) > 15",
              lambda s: s != "" and lt.position_sum(s) > 15 * len(s), NONEMPTY),
)
"""Conditions on alphabet positions (A = 1 ... Z = 26) summed over the string."""
# fmt: on

LETTERS: tuple[Condition, ...] = (
    starts_with("S"),
    starts_with("M"),
    ends_with("E"),
    ends_with("Y"),
    contains("K"),
    contains("Q"),
    occurs_exactly("R", 1),
    occurs_exactly("L", 1),
    occurs_exactly("E", 2),
    occurs_exactly("S", 2),
    occurs_at_least("A", 2),
    occurs_at_least("T", 2),
    occurs_at_least("O", 2),
    more_than("M", "N"),
    more_than("B", "D"),
    more_than("X", "W"),
    contains_both("K", "T"),
    contains_both("A", "Z"),
    contains_both("J", "P"),
    contains_without("D", "P"),
    contains_without("G", "H"),
    contains_without("I", "U"),
)
"""Conditions on particular letters (each letter holds 1/26 of random letters)."""
