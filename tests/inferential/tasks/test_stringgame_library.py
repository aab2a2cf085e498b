"""The StringGame rule library: size, texts, totality, condition rates and spot checks."""

import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebench.inferential.tasks.stringgame import execute
from rulebench.inferential.tasks.stringgame.rules import LIBRARY
from rulebench.inferential.tasks.stringgame.rules.conditions import (
    HAS_CONSONANT,
    HAS_VOWEL,
    NONEMPTY,
)
from rulebench.inferential.tasks.stringgame.rules.letters import VOWELS

UPPER = st.text(alphabet=string.ascii_uppercase, min_size=0, max_size=30)
RULES = list(LIBRARY.values())
CONDITIONS = {rule.condition.key: rule.condition for rule in RULES}


def random_strings(count: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [
        "".join(rng.choices(string.ascii_uppercase, k=rng.randint(6, 20))) for _ in range(count)
    ]


def fact_holds(fact: str, s: str) -> bool:
    """What each `ensures`/`needs` fact claims about a string."""
    kind, _, letter = fact.partition(":")
    checks = {
        HAS_VOWEL: lambda: any(c in VOWELS for c in s),
        HAS_CONSONANT: lambda: any(c not in VOWELS for c in s),
        NONEMPTY: lambda: s != "",
        "has": lambda: letter in s,
        "twice": lambda: s.count(letter) >= 2,
    }
    return checks[kind]()


def test_library_has_at_least_150_rules_with_unique_ids_and_texts() -> None:
    assert len(LIBRARY) >= 150
    assert all(rule_id == rule.id for rule_id, rule in LIBRARY.items())
    assert len({rule.nl for rule in RULES}) == len(RULES)
    assert len({rule.fol for rule in RULES}) == len(RULES)
    assert list(LIBRARY)[:3] == ["sg-001", "sg-002", "sg-003"]


def test_every_rule_has_natural_language_and_logic_forms() -> None:
    for rule in RULES:
        assert rule.nl.startswith("If ") and ", then output " in rule.nl and rule.nl.endswith(".")
        assert " => output(" in rule.fol and rule.fol.endswith(")")
        as_rule = rule.to_rule()
        assert (as_rule.id, as_rule.nl, as_rule.fol) == (rule.id, rule.nl, rule.fol)


@settings(max_examples=150, deadline=None)
@given(UPPER)
def test_no_rule_raises_and_outputs_are_ints_exactly_when_conditions_hold(s: str) -> None:
    for rule in RULES:
        value = rule.execute(s)
        assert (value is not None) == rule.condition.holds(s)
        assert value is None or type(value) is int


@settings(max_examples=150, deadline=None)
@given(UPPER)
def test_conditions_guarantee_the_facts_they_claim(s: str) -> None:
    for condition in CONDITIONS.values():
        if condition.holds(s):
            assert all(fact_holds(fact, s) for fact in condition.ensures), (condition.key, s)


def test_outputs_only_rely_on_facts_their_condition_ensures() -> None:
    for rule in RULES:
        assert rule.output.needs <= rule.condition.ensures, rule.id


def test_each_condition_holds_for_a_reasonable_share_of_random_strings() -> None:
    strings = random_strings(3000)
    rates = {key: sum(map(c.holds, strings)) / len(strings) for key, c in CONDITIONS.items()}
    too_rare = {key: rate for key, rate in rates.items() if rate < 0.02}
    too_common = {key: rate for key, rate in rates.items() if rate > 0.8}
    assert not too_rare and not too_common
    # A 30-rule pool must often have exactly one applying rule (the all-rule setting needs it).
    assert sum(rates[rule.condition.key] for rule in RULES) / len(RULES) < 0.25


# (rule id, string, expected output or None), each worked out by hand from the rule's text.
SPOT_CHECKS = [
    ("sg-026", "ABCA", 2),  # first letter equals last: "A" appears twice
    ("sg-026", "ABCD", None),
    ("sg-027", "ABCA", 4),
    ("sg-017", "ABBCE", 2),  # starts with a vowel: distinct consonants B, C
    ("sg-017", "BA", None),
    ("sg-020", "YXA", 2),  # Y is a consonant: the first vowel is A at index 2
    ("sg-019", "ABCEX", 4),  # last vowel E at index 3, position 4 counting from 1
    ("sg-080", "ABLX", 2),  # one L, index from 0
    ("sg-080", "LL", None),
    ("sg-078", "ABR", 3),  # one R, position from 1
    ("sg-082", "XEABEZ", 2),  # two Es with "AB" between them
    ("sg-082", "EE", 0),
    ("sg-082", "EEE", None),
    ("sg-003", "ABCDEFGHIJKLMNOPQ", 8),  # 17 letters, halved and rounded down
    ("sg-050", "BCDBY", 4),  # no vowels: B, C, D, Y
    ("sg-066", "ABB", 5),  # 1 + 2 + 2 = 5, a multiple of 5
    ("sg-076", "ABCXY", 3),  # AB, BC, XY
    ("sg-014", "AXXZZ", 25),  # 5 letters (prime): |1 - 26|
    ("sg-055", "BAEC", 0),  # two vowels, two consonants
    ("sg-062", "ABC", 3),
    ("sg-062", "ABA", None),
    ("sg-116", "ABACD", 2),  # odd length, "ABA": "A" appears twice
    ("sg-038", "ABDE", 2),  # A < B < D; AB and DE are alphabet neighbours
    ("sg-038", "AAB", None),  # not strictly increasing
    ("sg-034", "CDC", 3),
    ("sg-041", "AXXXZ", 2),  # A and Z are 25 apart; 5 mod 3
    ("sg-012", "AABBC", 2),  # length 5: A and B repeat
    ("sg-097", "XXAB", 2),  # more Xs than Ws: A and B appear once
    ("sg-022", "BCDAFGA", 3),  # starts with B, ends with A: longest consonant run BCD
    ("sg-024", "ABECDF", 3),  # last vowel E, then C, D, F
    ("sg-006", "ABCDEFGHIJ", 9),
    ("sg-058", "ABE", 4),  # two vowels out of three letters
    ("sg-001", "A", 0),  # length 1 is fine
]


@pytest.mark.parametrize(("rule_id", "s", "expected"), SPOT_CHECKS)
def test_rule_texts_and_implementations_agree(rule_id: str, s: str, expected: int | None) -> None:
    assert execute(rule_id, s) == expected, LIBRARY[rule_id].nl


def test_spot_checked_rules_say_what_they_compute() -> None:
    texts = {rule_id: LIBRARY[rule_id].nl for rule_id in ("sg-020", "sg-026", "sg-078")}
    assert texts["sg-020"] == (
        "If the string ends with a vowel, then output the index of the first vowel in the string "
        "(starting from 0)."
    )
    assert "first letter of the string is the same as its last letter" in texts["sg-026"]
    assert "(counting from 1)" in texts["sg-078"]
