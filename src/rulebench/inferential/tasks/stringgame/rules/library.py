"""The StringGame rule library: which condition is paired with which output, and the rule ids.

Ids are "sg-001", "sg-002", ... in the order of PAIRINGS. The table is append-only: a rule's id
names it in stored runs, so never reorder, remove or edit an entry; add new ones at the end.
"""

from collections.abc import Callable
from typing import NamedTuple

from rulebench.core.errors import ConfigError
from rulebench.core.rules import Rule
from rulebench.inferential.tasks.stringgame.rules import content_conditions as content
from rulebench.inferential.tasks.stringgame.rules import outputs as out
from rulebench.inferential.tasks.stringgame.rules import shape_conditions as shape
from rulebench.inferential.tasks.stringgame.rules.conditions import Condition, both
from rulebench.inferential.tasks.stringgame.rules.outputs import Output


class StringRule(NamedTuple):
    """One executable rule: "if <condition>, then output <number>"."""

    id: str
    condition: Condition
    output: Output

    @property
    def nl(self) -> str:
        """The rule in natural language."""
        return f"If {self.condition.nl}, then output {self.output.nl}."

    @property
    def fol(self) -> str:
        """The rule in our logical notation: `condition(s) => output(term(s))`."""
        return f"{self.condition.fol} => output({self.output.fol})"

    def execute(self, s: str) -> int | None:
        """The rule's output for `s`, or None when its condition does not hold."""
        return self.output.compute(s) if self.condition.holds(s) else None

    def to_rule(self) -> Rule:
        """The rule as the rest of rulebench sees it (id, NL, FOL)."""
        return Rule(id=self.id, nl=self.nl, fol=self.fol)


# Each entry: a condition key (conjunctions join two keys with "&") and the outputs paired
# with it. Broad conditions (over ~35% of random strings) appear only inside conjunctions, so
# that a 30-rule pool often has exactly one rule that applies.
PAIRINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("len_lt10", ("distinct_consonants", "sum")),
    ("len_gt15", ("half_length", "max_count")),
    ("len_10_14", ("vowels_times_cons", "ascents")),
    ("len_div3", ("first_half", "last_pos")),
    ("len_div4", ("consonants", "vowel_run")),
    ("len_div5", ("twice_vowels", "repeated")),
    ("len_prime", ("distinct", "ends_diff")),
    ("len_square", ("length", "sum_mod7")),
    ("starts_vowel", ("distinct_consonants", "vowel_run", "last_vowel_place")),
    ("ends_vowel", ("first_vowel_index", "consonants")),
    ("cons_to_vowel", ("cons_run", "last_cons_place")),
    ("vowel_to_cons", ("after_last_vowel", "first_cons_index")),
    ("first_is_last", ("first_count", "length")),
    ("starts_early", ("first_pos", "vowels")),
    ("ends_late", ("last_pos", "distinct_vowels")),
    ("second_vowel", ("vowels", "half_length")),
    ("first_is_min", ("min_pos", "pos_range")),
    ("last_is_max", ("max_pos", "ends_sum")),
    ("first3_up", ("successors", "ascents")),
    ("ends_far", ("ends_diff", "length_mod3")),
    ("starts:S", ("count:S", "last_index:S")),
    ("starts:M", ("first_half", "count:M")),
    ("ends:E", ("first_index:E", "vowels")),
    ("ends:Y", ("first_place:Y", "consonants")),
    ("no_vowels", ("distinct_consonants", "sum_mod10")),
    ("one_vowel", ("first_vowel_index", "vowel_pos_sum")),
    ("two_vowels", ("last_vowel_place", "cons_minus_vowels")),
    ("vowels_ge4", ("distinct_vowels", "vowel_run")),
    ("vowel_third", ("twice_vowels", "cons_minus_vowels")),
    ("three_vowel_kinds", ("vowel_pos_sum", "first_vowel_index")),
    ("all_distinct", ("length", "sum_mod10")),
    ("some_thrice", ("max_count", "repeated")),
    ("sum_div5", ("sum", "length")),
    ("sum_div7", ("sum_mod10", "distinct")),
    ("mean_gt15", ("second_half", "max_pos")),
    ("vcv", ("vowels", "first_vowel_index")),
    ("vowel_pair", ("vowel_run", "distinct_vowels")),
    ("successor", ("successors", "min_pos")),
    ("exactly1:R", ("first_place:R", "length")),
    ("exactly1:L", ("first_index:L", "consonants")),
    ("exactly2:E", ("gap:E", "last_index:E")),
    ("exactly2:S", ("gap:S", "first_place:S")),
    ("atleast2:A", ("count:A", "gap:A")),
    ("atleast2:T", ("count:T", "first_index:T")),
    ("atleast2:O", ("last_index:O", "gap:O")),
    ("more:M>N", ("count:M", "first_index:M")),
    ("more:B>D", ("first_place:B", "count:D")),
    ("more:X>W", ("last_index:X", "singles")),
    ("both:K+T", ("first_index:K", "last_index:T")),
    ("both:A+Z", ("first_place:Z", "count:A")),
    ("both:J+P", ("first_index:P", "first_place:J")),
    ("without:D-P", ("first_index:D", "count:D")),
    ("without:G-H", ("last_index:G", "distinct")),
    ("without:I-U", ("first_place:I", "vowels")),
    ("len_even&starts_vowel", ("half_length", "sum_mod7")),
    ("len_odd&ends_vowel", ("length", "vowel_pos_sum")),
    ("len_even&double", ("doubles", "len_minus_distinct")),
    ("len_odd&palindrome3", ("first_count", "singles")),
    ("len_div3&first_before_last", ("ends_diff", "first_pos")),
    ("len_odd&first_repeats", ("first_count", "last_count")),
    ("len_even&last_repeats", ("last_count", "max_count")),
    ("starts_vowel&double", ("doubles", "vowels")),
    ("ends_vowel&palindrome3", ("distinct", "last_vowel_place")),
    ("sum_even&vowel_pair", ("sum", "vowel_run")),
    ("ends_vowel&sum_gt200", ("sum_mod10", "sum")),
    ("len_odd&ends_sum_gt30", ("ends_sum", "half_length")),
    ("len_div4&first_even_pos", ("first_pos", "second_half")),
    ("starts_vowel&distinct_ge10", ("distinct", "len_minus_distinct")),
    ("len_even&first_half_more", ("first_half", "second_half")),
    ("ends_vowel&cons_run7", ("cons_run", "last_cons_place")),
    ("len_gt15&has:K", ("first_index:K", "count:K")),
    ("len_lt10&has:Q", ("first_place:Q", "last_index:Q")),
    ("vowels_ge4&starts_cons", ("first_vowel_index", "first_cons_index")),
    ("second_vowel&starts_cons", ("first_pos", "vowel_pos_sum")),
    ("len_div3&vowels_odd", ("vowels", "twice_vowels")),
    ("ends_vowel&first_before_last", ("ends_sum", "last_pos")),
    ("len_10_14&first_repeats", ("first_count", "repeated")),
    ("ends_vowel&first_even_pos", ("last_vowel_place", "first_pos")),
    ("double&palindrome3", ("len_minus_distinct", "doubles")),
    ("len_odd&sum_even", ("sum", "sum_mod7")),
    ("len_gt15&vcv", ("vowel_pos_sum", "after_last_vowel")),
    ("sum_even&distinct_ge10", ("singles", "distinct_vowels")),
    ("len_div5&cons_run7", ("consonants", "cons_minus_vowels")),
    ("starts_vowel&last_repeats", ("last_count", "after_last_vowel")),
    ("vowels_odd&has:K", ("count:K", "last_index:K")),
    ("ends_late&has:Q", ("last_index:Q", "last_pos")),
    ("starts_vowel&first_repeats", ("first_count", "twice_vowels")),
    ("len_prime&double", ("doubles", "distinct_consonants")),
    ("len_lt10&successor", ("successors", "ascents")),
    ("len_gt15&first_before_last", ("ends_diff", "ascents")),
    ("len_div4&palindrome3", ("length", "singles")),
    ("first_half_more&sum_div5", ("first_half", "sum")),
    ("len_square&first_repeats", ("max_count", "first_count")),
)


_LETTER_CONDITIONS = {c.key: c for c in content.LETTERS}
CONDITIONS: dict[str, Condition] = {
    c.key: c
    for c in (
        *shape.LENGTH,
        *shape.BOUNDARY,
        *content.COMPOSITION,
        *content.PATTERN,
        *content.ARITHMETIC,
        *content.LETTERS,
    )
}
"""Every single condition by key (conjunctions are built from these)."""

OUTPUTS: dict[str, Output] = {o.key: o for o in (*out.GENERAL, *out.POSITIONAL, *out.ADJACENCY)}
"""Every output that takes no letter, by key."""

_LETTER_OUTPUTS: dict[str, Callable[[str], Output]] = {
    "count": out.count_of,
    "first_index": out.first_index_of,
    "first_place": out.first_place_of,
    "last_index": out.last_index_of,
    "gap": out.gap_of,
}


def find_condition(key: str) -> Condition:
    """A condition by key; "a&b" is the conjunction of conditions a and b."""
    if "&" in key:
        first, second = key.split("&", 1)
        return both(find_condition(first), find_condition(second))
    if key not in CONDITIONS:
        raise ConfigError(f"stringgame library: unknown condition '{key}'")
    return CONDITIONS[key]


def find_output(key: str) -> Output:
    """An output by key; "first_index:E" and the like build a letter output."""
    kind, _, letter = key.partition(":")
    if letter and kind in _LETTER_OUTPUTS:
        return _LETTER_OUTPUTS[kind](letter)
    if key not in OUTPUTS:
        raise ConfigError(f"stringgame library: unknown output '{key}'")
    return OUTPUTS[key]


def build_library() -> dict[str, StringRule]:
    """Every rule of PAIRINGS by id, checking that each output is defined under its condition."""
    rules: dict[str, StringRule] = {}
    for condition_key, output_keys in PAIRINGS:
        condition = find_condition(condition_key)
        for output_key in output_keys:
            rule = StringRule(f"sg-{len(rules) + 1:03d}", condition, find_output(output_key))
            missing = rule.output.needs - condition.ensures
            if missing:
                raise ConfigError(
                    f"stringgame library: rule {rule.id} ({condition_key} -> {output_key}): "
                    f"the output needs {sorted(missing)}, which the condition does not ensure"
                )
            rules[rule.id] = rule
    return rules


LIBRARY: dict[str, StringRule] = build_library()
"""The whole StringGame rule library by id."""
