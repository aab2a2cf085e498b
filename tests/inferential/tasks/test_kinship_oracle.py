"""The kinship oracle: rule matching semantics, and unambiguous listings over many samples."""

import random

import pytest

from rulebench.core.errors import DataError
from rulebench.core.rules import Rule, Sample, TaskData
from rulebench.inferential.tasks.kinship import generate
from rulebench.inferential.tasks.kinship.oracle import (
    FactBase,
    Story,
    applies,
    check_sample,
    check_tree,
    conclusion_for,
)
from rulebench.inferential.tasks.kinship.rules import KinRule, parse_fol

# Ann's father is Bob; Bob's brother is Carl.
STORY = Story(
    head="Ann",
    tail="Carl",
    facts=(("Ann", "father", "Bob"), ("Bob", "brother", "Carl")),
    genders={"Ann": "female", "Bob": "male", "Carl": "male"},
)


def _rule(relations: tuple[str, ...], head: str, tail: str, conclusion: str) -> KinRule:
    return KinRule.model_validate(
        {"relations": relations, "head_gender": head, "tail_gender": tail, "conclusion": conclusion}
    )


def test_rule_applies_when_chain_and_genders_match() -> None:
    base = FactBase(STORY)
    uncle = _rule(("father", "brother"), "female", "male", "uncle")
    assert applies(uncle, base)
    assert conclusion_for(uncle, base, "Ann", "Carl") == "uncle"
    assert conclusion_for(uncle, base, "Carl", "Ann") is None
    assert not applies(_rule(("father", "brother"), "male", "male", "uncle"), base)  # Ann is female
    assert not applies(_rule(("father", "sister"), "female", "female", "aunt"), base)


def test_converse_facts_count_and_variables_bind_distinct_people() -> None:
    base = FactBase(STORY)
    # Carl's brother Bob (converse of Bob's brother Carl), Bob's daughter Ann (converse of father).
    assert applies(_rule(("brother", "daughter"), "male", "female", "niece"), base)
    # Bob's brother Carl, Carl's brother Bob: the chain would return to Bob.
    assert not applies(_rule(("brother", "brother"), "male", "male", "brother"), base)
    assert not applies(_rule(("father", "brother", "son"), "female", "male", "cousin"), base)


def test_parse_rejects_what_is_not_a_chain_rule() -> None:
    for text in (
        "father(A,B) => uncle(A,B)",  # no gender atoms
        "father(A,B) ∧ brother(C,D) ∧ male(A) ∧ male(D) => uncle(A,D)",  # broken chain
        "father(A,B) ∧ cousin(B,C) ∧ male(A) ∧ male(C) => uncle(A,C)",  # not a story edge
        "father(A,B) ∧ brother(B,C) ∧ male(A) ∧ male(C)",  # no conclusion
        "father(A,B) ∧ brother(B,C) ∧ male(A) ∧ male(C) => uncle(B,C)",
    ):
        with pytest.raises(DataError, match="kinship rule r7"):
            parse_fol(text, "r7")


SEEDS = (101, 202, 303, 404)


@pytest.fixture(scope="module")
def tasks() -> list[TaskData]:
    return [generate(500, seed) for seed in SEEDS]


def _noise(sample: Sample, rules: dict[str, Rule], count: int, rng: random.Random) -> list[str]:
    applicable = sample.metadata["applicable_rules"]
    assert isinstance(applicable, list)
    skip = set(applicable)
    pool = [rule_id for rule_id in rules if rule_id not in skip]
    return rng.sample(pool, count)


@pytest.mark.slow  # thousands of samples through the oracle; make test runs it
def test_golden_plus_noise_is_unambiguous_over_thousands_of_samples(tasks: list[TaskData]) -> None:
    checked = 0
    for seed, task in zip(SEEDS, tasks, strict=True):
        rng = random.Random(seed)
        for sample in task.samples + task.demos:
            check_tree(sample)
            for count in (2, 29):
                noise = _noise(sample, task.rules, count, rng)
                listed = [sample.golden_rule, *noise]
                rng.shuffle(listed)
                check_sample(sample, listed, task.rules, against_tree=False)
                cf_listed = [str(sample.cf_golden_rule), *noise]
                check_sample(sample, cf_listed, task.rules, counterfactual=True, against_tree=False)
                checked += 2
    assert checked >= 8000


def test_check_sample_rejects_ambiguous_or_wrong_listings(tasks: list[TaskData]) -> None:
    task = tasks[0]
    sample = task.samples[0]
    cf_rule = str(sample.cf_golden_rule)
    with pytest.raises(DataError, match=sample.id):
        check_sample(sample, [sample.golden_rule, cf_rule], task.rules)
    with pytest.raises(DataError, match="expected only"):
        check_sample(sample, [cf_rule], task.rules)  # factual check, counterfactual rule
    applicable = sample.metadata["applicable_rules"]
    assert isinstance(applicable, list)
    other = next(s for s in task.samples if s.golden_rule not in applicable)
    with pytest.raises(DataError, match="expected only"):
        check_sample(sample, [other.golden_rule], task.rules)
    with pytest.raises(DataError, match="not in the rule set"):
        check_sample(sample, [sample.golden_rule, "kin-missing"], task.rules)
    wrong = sample.model_copy(update={"gold": "stepson"})
    with pytest.raises(DataError, match="in the tree"):
        check_sample(wrong, [sample.golden_rule], task.rules)
    relabelled = {
        **task.rules,
        sample.golden_rule: Rule(id="x", nl="x", fol=task.rules[cf_rule].fol),
    }
    with pytest.raises(DataError, match="yields"):
        check_sample(sample, [sample.golden_rule], relabelled, against_tree=False)


def test_check_tree_catches_a_false_fact(tasks: list[TaskData]) -> None:
    sample = tasks[1].samples[0]
    facts = sample.metadata["facts"]
    assert isinstance(facts, list) and isinstance(facts[0], list)
    a, relation, b = facts[0]
    swapped = {"father": "son", "son": "father"}.get(str(relation), "father")
    tampered = [[a, swapped, b], *facts[1:]]
    bad = sample.model_copy(update={"metadata": {**sample.metadata, "facts": tampered}})
    with pytest.raises(DataError, match="is false"):
        check_tree(bad)
    with pytest.raises(DataError, match="metadata"):
        check_tree(sample.model_copy(update={"metadata": {}}))
