"""Kinship rules: the pattern a golden rule states, its NL and FOL texts, ids, and parsing back.

Text shapes (the paper's, in our words). For the pattern father, brother with a male head:

- NL: "If A has a father B, B has a brother C, and A is male and C is male, then C is the uncle
  of A."
- FOL: "father(A,B) ∧ brother(B,C) ∧ male(A) ∧ male(C) => uncle(A,C)"

`r(X,Y)` reads "Y is X's r", as in the story facts. Gender conditions are unary atoms on the first
and last variable, after the chain. Multi-word labels use underscores in FOL (`son_in_law`).
Variables bind distinct people (a chain never returns to someone already on it).
"""

import functools
import re

from pydantic import BaseModel, ConfigDict

from rulebench.core.errors import DataError
from rulebench.core.items import content_hash
from rulebench.core.rules import Rule
from rulebench.inferential.tasks.kinship.relations import (
    CF_LABELS,
    EDGE_RELATIONS,
    RELATION_GENDER,
    Gender,
    compose_chain,
)

_VARIABLES = "ABCDEFGHIJKLMNOP"
MAX_HOPS = 10


class KinRule(BaseModel):
    """A chain pattern with gender conditions and the relation it concludes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    relations: tuple[str, ...]
    """The premise chain, R1..Rk: B is A's R1, C is B's R2, ..."""
    head_gender: Gender
    """Condition on A, the chain's first person."""
    tail_gender: Gender
    """Condition on the chain's last person (always the gender its last relation names)."""
    conclusion: str
    """What the last person is to A; for a counterfactual rule, one of the 20 labels."""

    @property
    def premise(self) -> tuple[tuple[str, ...], Gender, Gender]:
        """The part a factual rule and its counterfactual twin share."""
        return self.relations, self.head_gender, self.tail_gender


def rule_id(rule: KinRule) -> str:
    """A stable id from the rule's content, so equal rules share one id across samples."""
    return "kin-" + content_hash(
        [list(rule.relations), rule.head_gender, rule.tail_gender, rule.conclusion], length=12
    )


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def nl_text(rule: KinRule) -> str:
    """The rule in natural language (see the module docstring for the shape)."""
    names = _VARIABLES[: len(rule.relations) + 1]
    hops = [
        f"{names[i]} has {_article(r)} {r} {names[i + 1]}" for i, r in enumerate(rule.relations)
    ]
    first, last = names[0], names[-1]
    return (
        f"If {', '.join(hops)}, and {first} is {rule.head_gender} and {last} is "
        f"{rule.tail_gender}, then {last} is the {rule.conclusion} of {first}."
    )


def _predicate(label: str) -> str:
    return label.replace("-", "_")


def fol_text(rule: KinRule) -> str:
    """The rule in first-order logic (see the module docstring for the shape)."""
    names = _VARIABLES[: len(rule.relations) + 1]
    atoms = [f"{_predicate(r)}({names[i]},{names[i + 1]})" for i, r in enumerate(rule.relations)]
    atoms += [f"{rule.head_gender}({names[0]})", f"{rule.tail_gender}({names[-1]})"]
    return f"{' ∧ '.join(atoms)} => {_predicate(rule.conclusion)}({names[0]},{names[-1]})"


def to_rule(rule: KinRule, counterfactual: bool = False) -> Rule:
    """The rule as the rest of rulebench sees it: id, NL, FOL, and whether it is a twin."""
    return Rule(
        id=rule_id(rule), nl=nl_text(rule), fol=fol_text(rule), counterfactual=counterfactual
    )


def is_counterfactual(rule: KinRule) -> bool:
    """Whether a rule's conclusion is wrong in reality: it differs from its chain's composition."""
    return compose_chain(rule.relations) != rule.conclusion


def counterfactual_of(rule: KinRule) -> KinRule:
    """Same premise, another conclusion of the tail's gender, chosen by the pattern's hash.

    Derived from the premise alone, so a premise has one counterfactual twin however many
    samples share it; never the factual conclusion, so it is always wrong in the tree.
    """
    options = [
        label
        for label in CF_LABELS
        if RELATION_GENDER[label] == rule.tail_gender and label != rule.conclusion
    ]
    digest = content_hash(["cf", list(rule.relations), rule.head_gender, rule.tail_gender])
    pick = options[int(digest, 16) % len(options)]
    return rule.model_copy(update={"conclusion": pick})


_ATOM = re.compile(r"^([a-z_]+)\(([A-Z])(?:,([A-Z]))?\)$")
_PREDICATES = {_predicate(label): label for label in (*CF_LABELS, *EDGE_RELATIONS)}


def _atom(text: str, rule_name: str) -> tuple[str, str, str | None]:
    match = _ATOM.match(text.strip())
    if match is None or (match.group(3) and match.group(1) not in _PREDICATES):
        raise DataError(f"kinship rule {rule_name}: cannot read the atom {text.strip()!r}")
    return _PREDICATES.get(match.group(1), match.group(1)), match.group(2), match.group(3)


@functools.lru_cache(maxsize=1 << 14)
def parse_fol(fol: str, rule_name: str = "?") -> KinRule:
    """Read back a rule written by `fol_text`.

    Raises:
        DataError: the text is not a chain of relation atoms over consecutive variables, gender
            atoms on its first and last variable, and a conclusion from first to last.
    """
    body, arrow, head = fol.partition(" => ")
    if not arrow:
        raise DataError(f"kinship rule {rule_name}: no ' => ' in {fol!r}")
    atoms = [_atom(part, rule_name) for part in body.split(" ∧ ")]
    chain = [a for a in atoms if a[2] is not None]
    unary = [a for a in atoms if a[2] is None]
    conclusion = _atom(head, rule_name)
    names = _VARIABLES[: len(chain) + 1]
    is_chain_rule = (
        1 <= len(chain) <= MAX_HOPS
        and all(
            a[0] in EDGE_RELATIONS and (a[1], a[2]) == (names[i], names[i + 1])
            for i, a in enumerate(chain)
        )
        and [a[1] for a in unary] == [names[0], names[-1]]
        and all(a[0] in ("male", "female") for a in unary)
        and conclusion[0] in CF_LABELS
        and (conclusion[1], conclusion[2]) == (names[0], names[-1])
    )
    if not is_chain_rule:
        raise DataError(f"kinship rule {rule_name}: not a chain rule: {fol!r}")
    return KinRule.model_validate(
        {
            "relations": tuple(a[0] for a in chain),
            "head_gender": unary[0][0],
            "tail_gender": unary[1][0],
            "conclusion": conclusion[0],
        }
    )
