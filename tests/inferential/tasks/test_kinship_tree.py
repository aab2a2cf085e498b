"""Family trees, relation reading, composition facts, rule checks in a tree, names, templates."""

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebench.core.errors import DataError
from rulebench.inferential.tasks.kinship.chain import draw_instance, rule_holds
from rulebench.inferential.tasks.kinship.names import FEMALE_NAMES, MALE_NAMES
from rulebench.inferential.tasks.kinship.relations import (
    ANSWER_LABELS,
    COMPOSITION,
    EDGE_RELATIONS,
    Gender,
    compose_chain,
)
from rulebench.inferential.tasks.kinship.text import render_fact, templates
from rulebench.inferential.tasks.kinship.tree import (
    MAX_PEOPLE,
    FamilyTree,
    Person,
    build_tree,
    kin_index,
    relations_between,
    tree_from_json,
    tree_label,
    tree_to_json,
)


def _tree(*people: tuple[str, str, str | None, str | None, str | None]) -> FamilyTree:
    fields = ("name", "gender", "father", "mother", "spouse")
    members = {
        person[0]: Person.model_validate(dict(zip(fields, person, strict=True)))
        for person in people
    }
    return FamilyTree(people=members)


# Grandparents Gus+Gia; their children Dan (married to Eve, whose parents are Fred+Fay) and Ada;
# Dan and Eve's children Sam and Sue. Eve has a brother Ed.
FAMILY = _tree(
    ("Gus", "male", None, None, "Gia"),
    ("Gia", "female", None, None, "Gus"),
    ("Fred", "male", None, None, "Fay"),
    ("Fay", "female", None, None, "Fred"),
    ("Dan", "male", "Gus", "Gia", "Eve"),
    ("Ada", "female", "Gus", "Gia", None),
    ("Eve", "female", "Fred", "Fay", "Dan"),
    ("Ed", "male", "Fred", "Fay", None),
    ("Sam", "male", "Dan", "Eve", None),
    ("Sue", "female", "Dan", "Eve", None),
)


def test_relations_read_off_the_tree() -> None:
    index = kin_index(FAMILY)
    assert tree_label(index, "Sam", "Dan") == "father"
    assert tree_label(index, "Sam", "Sue") == "sister"
    assert tree_label(index, "Sam", "Ada") == "aunt"
    assert tree_label(index, "Sam", "Ed") == "uncle"
    assert tree_label(index, "Sam", "Fred") == "grandfather"
    assert tree_label(index, "Ada", "Sue") == "niece"
    assert tree_label(index, "Dan", "Fay") == "mother-in-law"
    assert tree_label(index, "Gus", "Eve") == "daughter-in-law"
    assert tree_label(index, "Gia", "Sam") == "grandson"
    assert relations_between(index, "Dan", "Eve") == ["wife"]
    assert tree_label(index, "Dan", "Eve") is None  # wife is a story edge, not an answer label
    assert tree_label(index, "Ada", "Ed") is None  # unrelated
    assert tree_label(index, "Sam", "Sam") is None


def test_composition_facts_as_stated() -> None:
    assert compose_chain(("father", "brother")) == "uncle"
    assert compose_chain(("son", "wife")) == "daughter-in-law"
    assert compose_chain(("wife", "father")) == "father-in-law"
    assert compose_chain(("father", "son", "son")) == "nephew"
    assert compose_chain(("uncle", "wife")) is None  # the table says nothing about it
    assert all(r1 in EDGE_RELATIONS and r2 in EDGE_RELATIONS for r1, r2 in COMPOSITION)


def test_ambiguous_composition_fails_in_a_tree_that_shows_it() -> None:
    index = kin_index(FAMILY)
    # Dan's son's grandfathers are Dan's father (Gus) and his father-in-law (Fred).
    assert compose_chain(("son", "grandfather")) == "father"
    assert not rule_holds(FAMILY, index, ("son", "grandfather"), "male")
    assert rule_holds(FAMILY, index, ("father", "brother"), "male")
    assert rule_holds(FAMILY, index, ("wife", "son"), "male")


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_trees_follow_the_family_model(seed: int) -> None:
    tree = build_tree(random.Random(seed))
    people = tree.people
    assert 4 <= len(people) <= MAX_PEOPLE
    for person in people.values():
        if person.spouse is not None:
            spouse = people[person.spouse]
            assert spouse.spouse == person.name and spouse.gender != person.gender
        assert (person.father is None) == (person.mother is None)
        if person.father is not None and person.mother is not None:
            assert people[person.father].spouse == person.mother  # full siblings only
            assert people[person.father].gender == "male"
    index = kin_index(tree)
    for head in people:
        for tail in people:
            labels = [w for w in relations_between(index, head, tail) if w in ANSWER_LABELS]
            assert len(labels) <= 1, (head, tail, labels)


@pytest.mark.parametrize("hops", [2, 6, 10])
def test_drawn_chains_agree_with_tree_and_table(hops: int) -> None:
    rng = random.Random(hops)
    for _ in range(20):
        instance = draw_instance(rng, hops, distractors=3)
        index = kin_index(instance.tree)
        assert len(instance.chain) == hops
        people = [instance.head, *(b for _, _, b in instance.chain)]
        assert len(set(people)) == hops + 1
        for a, relation, b in (*instance.chain, *instance.distractors):
            assert b in index[a].get(relation, ())
        assert tree_label(index, instance.head, instance.tail) == instance.label
        assert compose_chain(instance.relations) == instance.label
        newcomers = [p for a, _, b in instance.distractors for p in (a, b) if p not in people]
        assert len(newcomers) == len(set(newcomers)) == len(instance.distractors)


def test_names_unique_and_never_a_prefix_of_another() -> None:
    names = MALE_NAMES + FEMALE_NAMES
    assert len(set(names)) == len(names)
    assert min(len(MALE_NAMES), len(FEMALE_NAMES)) > MAX_PEOPLE
    assert not [(a, b) for a in names for b in names if a != b and b.startswith(a)]


@pytest.mark.parametrize("relation", EDGE_RELATIONS)
def test_every_paraphrase_states_its_fact(relation: str) -> None:
    assert len(templates(relation)) >= 7
    genders: dict[str, Gender] = {"Ann": "female", "Bob": "male"}
    for seed in range(30):
        sentence = render_fact(("Ann", relation, "Bob"), genders, random.Random(seed))
        assert re.search(rf"\b{relation}\b", sentence)
        assert "Ann" in sentence and "Bob" in sentence
        other = [w for w in EDGE_RELATIONS if w != relation and re.search(rf"\b{w}\b", sentence)]
        assert not other
        assert " his " not in sentence  # Ann is female


def test_tree_json_round_trip_and_errors() -> None:
    assert tree_from_json(tree_to_json(FAMILY), "t") == FAMILY
    with pytest.raises(DataError, match="t: expected an object"):
        tree_from_json(["Gus"], "t")
    with pytest.raises(DataError, match="t: "):
        tree_from_json({"Gus": {"gender": "other"}}, "t")
