"""The symbolic oracle: which kinship rules apply to a story, and what they conclude.

A rule applies to a story when its whole premise chain matches facts of the story under one
binding of its variables to distinct people, and its gender conditions hold. The facts of a story
are the stated ones plus their converses ("B is A's father" also says "A is B's son"): a reader
gets both from one sentence, so a rule reachable only through a converse still counts as applying
(and is therefore never drawn as a noise rule). Everything here reads the sample's metadata alone,
so a stored sample can be re-checked without the generator.
"""

from collections.abc import Iterator, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, ValidationError

from rulebench.core.errors import DataError
from rulebench.core.rules import Rule, Sample
from rulebench.inferential.tasks.kinship.relations import Gender, converse
from rulebench.inferential.tasks.kinship.rules import KinRule, parse_fol
from rulebench.inferential.tasks.kinship.tree import kin_index, tree_from_json, tree_label


class Story(BaseModel):
    """The facts a kinship question states, read from a sample's metadata."""

    # Sample metadata holds more keys (hops, pattern, ...): this view reads only what it needs.
    model_config = ConfigDict(frozen=True, extra="ignore")

    head: str
    tail: str
    facts: tuple[tuple[str, str, str], ...]
    """(a, relation, b): b is a's relation, in story order."""
    genders: dict[str, Gender]
    """Gender of everyone the facts mention."""


class FactBase:
    """A story's facts and their converses, indexed for following a chain."""

    def __init__(self, story: Story) -> None:
        self.genders = story.genders
        self.people = tuple(dict.fromkeys(p for a, _, b in story.facts for p in (a, b)))
        self._next: dict[tuple[str, str], list[str]] = {}
        for a, relation, b in story.facts:
            self._add(a, relation, b)
            back = converse(relation, story.genders[a])
            if back is not None:
                self._add(b, back, a)
        self.relations = frozenset(relation for relation, _ in self._next)

    def _add(self, a: str, relation: str, b: str) -> None:
        following = self._next.setdefault((relation, a), [])
        if b not in following:
            following.append(b)

    def following(self, person: str, relation: str) -> list[str]:
        """The people who are `person`'s `relation` according to the story."""
        return self._next.get((relation, person), [])


def story_of(sample: Sample) -> Story:
    """The story view of a kinship sample; a DataError names the sample if metadata is missing."""
    try:
        story = Story.model_validate(sample.metadata)
    except ValidationError as err:
        raise DataError(f"kinship sample {sample.id}: metadata: {err}") from err
    mentioned = {p for a, _, b in story.facts for p in (a, b)} | {story.head, story.tail}
    missing = sorted(mentioned - story.genders.keys())
    if missing:
        raise DataError(f"kinship sample {sample.id}: metadata: no gender for {missing}")
    return story


def bindings(rule: KinRule, base: FactBase, head: str | None = None) -> Iterator[tuple[str, ...]]:
    """Every binding of the rule's variables (A first) that makes its premise true in the story."""
    if not base.relations.issuperset(rule.relations):
        return
    for start in (head,) if head is not None else base.people:
        if base.genders.get(start) == rule.head_gender:
            for path in _walk(rule.relations, base, (start,)):
                if base.genders[path[-1]] == rule.tail_gender:
                    yield path


def _walk(
    relations: tuple[str, ...], base: FactBase, path: tuple[str, ...]
) -> Iterator[tuple[str, ...]]:
    depth = len(path) - 1
    if depth == len(relations):
        yield path
        return
    for following in base.following(path[-1], relations[depth]):
        if following not in path:
            yield from _walk(relations, base, (*path, following))


def applies(rule: KinRule, base: FactBase) -> bool:
    """Whether the rule's premise and gender conditions hold for some people of the story."""
    return next(bindings(rule, base), None) is not None


def conclusion_for(rule: KinRule, base: FactBase, head: str, tail: str) -> str | None:
    """What the rule says `tail` is to `head`, or None if no binding links the two."""
    if any(path[-1] == tail for path in bindings(rule, base, head)):
        return rule.conclusion
    return None


class _Node:
    """One step of a trie over premise chains: rules sharing a prefix share its matching."""

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.ends: list[tuple[str, Gender, Gender]] = []


class RuleIndex:
    """Many rules at once, for finding all that apply to a story in one walk over its facts.

    Equivalent to calling `applies` for each rule, but a story's paths are followed once for
    every rule prefix, which keeps a set of a thousand rules times a thousand stories fast.
    """

    def __init__(self, rules: Mapping[str, KinRule]) -> None:
        self.order = list(rules)
        self.root = _Node()
        for key, rule in rules.items():
            node = self.root
            for relation in rule.relations:
                node = node.children.setdefault(relation, _Node())
            node.ends.append((key, rule.head_gender, rule.tail_gender))

    def applicable(self, base: FactBase) -> list[str]:
        """Ids of the rules that apply to the story, in the order the rules were given."""
        found: set[str] = set()
        for start in base.people:
            self._walk(base, self.root, (start,), found)
        return [key for key in self.order if key in found]

    def _walk(self, base: FactBase, node: _Node, path: tuple[str, ...], found: set[str]) -> None:
        for relation, child in node.children.items():
            for following in base.following(path[-1], relation):
                if following in path:
                    continue
                head, tail = base.genders[path[0]], base.genders[following]
                found.update(key for key, hg, tg in child.ends if (hg, tg) == (head, tail))
                self._walk(base, child, (*path, following), found)


def applicable_ids(base: FactBase, rules: Mapping[str, KinRule]) -> list[str]:
    """Ids of the rules that apply to the story, in the mapping's order."""
    return RuleIndex(rules).applicable(base)


def parsed(rule_id: str, rules: Mapping[str, Rule]) -> KinRule:
    """A listed rule read back from its FOL text; DataError if missing or not a chain rule."""
    rule = rules.get(rule_id)
    if rule is None:
        raise DataError(f"kinship rule {rule_id} is not in the rule set")
    if rule.fol is None:
        raise DataError(f"kinship rule {rule_id} has no FOL text to check")
    return parse_fol(rule.fol, rule_id)


def check_sample(
    sample: Sample,
    listed_rule_ids: Sequence[str],
    rules: Mapping[str, Rule],
    *,
    counterfactual: bool = False,
    against_tree: bool = True,
) -> None:
    """Prove a listing unambiguous: exactly one listed rule applies and it yields the gold.

    With `counterfactual`, the expected rule and answer are the sample's counterfactual ones.
    With `against_tree` (the default), the story and gold are also checked against the sample's
    family tree (`check_tree`); callers checking many listings of one sample do that once.

    Raises:
        DataError: naming the sample and what went wrong.
    """
    if against_tree:
        check_tree(sample)
    story = story_of(sample)
    base = FactBase(story)
    expected_rule, expected = sample.golden_rule, sample.gold
    if counterfactual:
        if sample.cf_golden_rule is None or sample.cf_gold is None:
            raise DataError(f"kinship sample {sample.id}: no counterfactual rule")
        expected_rule, expected = sample.cf_golden_rule, sample.cf_gold
    applying = [rid for rid in listed_rule_ids if applies(parsed(rid, rules), base)]
    if applying != [expected_rule]:
        raise DataError(
            f"kinship sample {sample.id}: listed rules that apply: {applying}; "
            f"expected only {expected_rule}"
        )
    got = conclusion_for(parsed(expected_rule, rules), base, story.head, story.tail)
    if got != expected:
        raise DataError(
            f"kinship sample {sample.id}: rule {expected_rule} yields {got!r} for "
            f"{story.tail} to {story.head}, gold is {expected!r}"
        )


def check_tree(sample: Sample) -> None:
    """Every story fact and the gold hold in the sample's family tree; the cf gold does not.

    Raises:
        DataError: naming the sample and the fact or answer the tree contradicts.
    """
    story = story_of(sample)
    tree = tree_from_json(
        sample.metadata.get("tree"), f"kinship sample {sample.id}: metadata: tree"
    )
    index = kin_index(tree)
    for a, relation, b in story.facts:
        if b not in index.get(a, {}).get(relation, ()):
            raise DataError(f"kinship sample {sample.id}: fact {b} is {a}'s {relation} is false")
    for name, gender in story.genders.items():
        if name not in tree.people or tree.people[name].gender != gender:
            raise DataError(f"kinship sample {sample.id}: gender of {name} disagrees with tree")
    truth = tree_label(index, story.head, story.tail)
    if truth != sample.gold or (sample.cf_gold is not None and sample.cf_gold == truth):
        raise DataError(
            f"kinship sample {sample.id}: {story.tail} is {story.head}'s {truth} in the tree; "
            f"gold {sample.gold!r}, counterfactual gold {sample.cf_gold!r}"
        )
