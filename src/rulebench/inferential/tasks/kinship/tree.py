"""Random family trees and the true relation between any two of their members.

The family model is the one the spec assumes: every child has both parents in the tree (so all
siblings are full siblings), couples are a man and a woman married for life (no step-relations),
and a spouse's child is one's own child. People who marry into the family may bring their own
parents and siblings, which is what makes in-law relations possible.
"""

import random

from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

from rulebench.core.errors import DataError
from rulebench.inferential.tasks.kinship.names import FEMALE_NAMES, MALE_NAMES
from rulebench.inferential.tasks.kinship.relations import ANSWER_LABELS, Gender

GENERATIONS = 4
"""Great-grandparents to great-grandchildren: enough room for 10-hop chains of 11 people."""
MAX_PEOPLE = 44
"""Caps a tree well under the name lists' length, so names never repeat within a story."""

_CHILD_COUNTS = (1, 2, 2, 3, 3, 4)
_FIRST_CHILD_COUNTS = (2, 3, 3, 4)
"""The founders always have several children: a tree of one small household holds no chain."""
_MARRY_P = 0.75
_IN_LAW_FAMILY_P = 0.5


class Person(BaseModel):
    """One member of a family tree; parents and spouse are names of other members."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    gender: Gender
    father: str | None = None
    mother: str | None = None
    spouse: str | None = None


class FamilyTree(BaseModel):
    """A whole family: the ground truth every story fact and answer is read from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    people: dict[str, Person]
    """Members by name, in the order they were created."""


KinIndex = dict[str, dict[str, tuple[str, ...]]]
"""person -> relation -> the people who are that relation of the person, e.g. ["x"]["uncle"].

Only relations someone holds are present: look words up with `.get(word, ())`."""


class _Builder:
    """Grows a tree person by person; only `build_tree` uses it."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.people: dict[str, dict[str, str | None]] = {}
        self.names: dict[Gender, list[str]] = {
            "male": list(MALE_NAMES),
            "female": list(FEMALE_NAMES),
        }

    def is_full(self) -> bool:
        return len(self.people) >= MAX_PEOPLE

    def add(self, gender: Gender, parents: tuple[str, str] | None = None) -> str:
        pool = self.names[gender]
        # Draw without replacement in O(1): move a random name to the end and take it.
        pick = self.rng.randrange(len(pool))
        pool[pick], pool[-1] = pool[-1], pool[pick]
        name = pool.pop()
        father, mother = parents if parents else (None, None)
        self.people[name] = {"gender": gender, "father": father, "mother": mother, "spouse": None}
        return name

    def marry(self, person: str) -> tuple[str, str]:
        """Add a spouse for `person` (maybe with a family); return (husband, wife)."""
        own = self.people[person]["gender"]
        gender: Gender = "female" if own == "male" else "male"
        parents = None
        if self.rng.random() < _IN_LAW_FAMILY_P and len(self.people) + 4 <= MAX_PEOPLE:
            parents = self._couple()
        spouse = self.add(gender, parents)
        if parents is not None:
            for _ in range(self.rng.choice((0, 1, 1, 2))):
                if not self.is_full():
                    self.add(self._gender(), parents)
        self.people[person]["spouse"] = spouse
        self.people[spouse]["spouse"] = person
        return (person, spouse) if own == "male" else (spouse, person)

    def _couple(self) -> tuple[str, str]:
        husband = self.add("male")
        wife = self.add("female")
        self.people[husband]["spouse"] = wife
        self.people[wife]["spouse"] = husband
        return husband, wife

    def _gender(self) -> Gender:
        return "male" if self.rng.random() < 0.5 else "female"

    def grow(self) -> None:
        """Children for each couple, generation by generation, until the tree is full."""
        frontier = [(self._couple(), 0)]
        while frontier:
            couple, generation = frontier.pop(0)
            counts = _FIRST_CHILD_COUNTS if generation == 0 else _CHILD_COUNTS
            for _ in range(self.rng.choice(counts)):
                if self.is_full():
                    return
                child = self.add(self._gender(), couple)
                if self.rng.random() < _MARRY_P and not self.is_full():
                    married = self.marry(child)
                    if generation + 2 < GENERATIONS:
                        frontier.append((married, generation + 1))


def build_tree(rng: random.Random) -> FamilyTree:
    """A random family of up to four generations and `MAX_PEOPLE` members."""
    builder = _Builder(rng)
    builder.grow()
    people = {name: {"name": name, **fields} for name, fields in builder.people.items()}
    return FamilyTree.model_validate({"people": people})


def tree_to_json(tree: FamilyTree) -> dict[str, JsonValue]:
    """The tree as compact JSON for sample metadata: name -> gender and the links it has."""
    return {
        name: person.model_dump(mode="json", exclude={"name"}, exclude_none=True)
        for name, person in tree.people.items()
    }


def tree_from_json(value: JsonValue, where: str) -> FamilyTree:
    """Read back `tree_to_json`.

    Raises:
        DataError: starting with `where`, saying what is malformed.
    """
    if not isinstance(value, dict):
        raise DataError(f"{where}: expected an object of people by name")
    people: dict[str, JsonValue] = {}
    for name, fields in value.items():
        if not isinstance(fields, dict):
            raise DataError(f"{where}: {name}: expected an object")
        people[name] = {**fields, "name": name}
    try:
        return FamilyTree.model_validate({"people": people})
    except ValidationError as err:
        raise DataError(f"{where}: {err}") from err


def _basic(tree: FamilyTree) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    parents: dict[str, list[str]] = {name: [] for name in tree.people}
    children: dict[str, list[str]] = {name: [] for name in tree.people}
    for person in tree.people.values():
        for parent in (person.father, person.mother):
            if parent is not None:
                parents[person.name].append(parent)
                children[parent].append(person.name)
    return parents, children


def kin_index(tree: FamilyTree) -> KinIndex:
    """Every relation (14 edges and 18 labels) from each person to the others, read off the tree."""
    parents, children = _basic(tree)
    gender = {name: person.gender for name, person in tree.people.items()}
    index: KinIndex = {}
    for name, person in tree.people.items():
        sibs = [c for p in parents[name][:1] for c in children[p] if c != name]
        spouse = [person.spouse] if person.spouse else []
        groups = (
            (parents[name], "father", "mother"),
            (children[name], "son", "daughter"),
            (sibs, "brother", "sister"),
            (spouse, "husband", "wife"),
            ([g for p in parents[name] for g in parents[p]], "grandfather", "grandmother"),
            ([g for c in children[name] for g in children[c]], "grandson", "granddaughter"),
            (_piblings(parents, children, name), "uncle", "aunt"),
            ([n for s in sibs for n in children[s]], "nephew", "niece"),
            ([p for s in spouse for p in parents[s]], "father-in-law", "mother-in-law"),
            (
                [tree.people[c].spouse or "" for c in children[name]],
                "son-in-law",
                "daughter-in-law",
            ),
        )
        # Sparse: a relation nobody holds is absent (callers use .get(word, ())).
        relations: dict[str, list[str]] = {}
        for names, male, female in groups:
            for other in names:
                if other:
                    relations.setdefault(male if gender[other] == "male" else female, []).append(
                        other
                    )
        index[name] = {word: tuple(members) for word, members in relations.items()}
    return index


def _piblings(
    parents: dict[str, list[str]], children: dict[str, list[str]], name: str
) -> list[str]:
    """Blood uncles and aunts: the parents' siblings (their spouses are not counted)."""
    out: list[str] = []
    for parent in parents[name]:
        grandparents = parents[parent][:1]
        out.extend(c for g in grandparents for c in children[g] if c != parent)
    return out


def relations_between(index: KinIndex, head: str, tail: str) -> list[str]:
    """Every relation word that `tail` is to `head` (edges and labels alike)."""
    return [word for word, members in index[head].items() if tail in members]


def tree_label(index: KinIndex, head: str, tail: str) -> str | None:
    """What `tail` is to `head` among the 18 answer labels; None if unrelated that closely."""
    labels = [word for word in relations_between(index, head, tail) if word in ANSWER_LABELS]
    return labels[0] if len(labels) == 1 else None
