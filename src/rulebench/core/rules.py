"""Inferential rules and rule sets, and the samples (questions) that rules apply to."""

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from rulebench.core.errors import DataError

RuleForm = Literal["nl", "fol"]


class Rule(BaseModel):
    """An if-then rule in natural language and, where the source has it, first-order logic."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    """Id as the source names it (official rule files key rules by strings like "412")."""
    nl: str
    fol: str | None = None
    """None when the source has no FOL for this rule (asking for FOL is then an error)."""
    counterfactual: bool = False
    """A generated rule whose conclusion is wrong in reality (a counterfactual twin); noise
    rules are drawn from the golden rule's own kind, so factual prompts list factual rules."""


RuleSet = Mapping[str, Rule]
"""A task's rules by id."""


class Sample(BaseModel):
    """One inferential question: what is asked, the gold answer and the rule that yields it.

    Loaders and generators make these; rendering a Sample under a Setting gives a prompt.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    """Stable id: a hash of the record's content (plus occurrence number for exact duplicates)."""
    task: str
    """Task name, e.g. "kinship", "clutrr-cf", "ulogic"."""
    question: str
    """The question as shown to the model (story and query, or input with its choices)."""
    gold: str
    """The gold answer in the task's answer vocabulary (label, letter, "true", charge, number)."""
    golden_rule: str
    """Id of the rule that applies to this question."""
    candidates: tuple[str, ...] = ()
    """The closed answer set shown or implied (for prompts and log-likelihood scoring)."""
    counterfactual: bool = False
    """True for samples whose rule and gold are counterfactual (the official *-cf datasets)."""
    cf_gold: str | None = None
    """Gold under this sample's own counterfactual rule (generated tasks pair the two)."""
    cf_golden_rule: str | None = None
    """Id of the counterfactual version of the golden rule, where the generator made one."""
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    """Task facts analyses group by: hops, field, label, depth, the raw record's extras."""


class TaskData(BaseModel):
    """A loaded or generated task: its samples, its rule set and few-shot demonstrations."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    samples: tuple[Sample, ...]
    rules: dict[str, Rule]
    demos: tuple[Sample, ...] = ()
    """Samples for few-shot demonstrations (a train/validation split, generated, or written
    for the task); never the samples being evaluated."""
    demo_rules: dict[str, Rule] = Field(default_factory=dict)
    """The rule set the demonstrations' rule ids refer to, when it is not `rules` (a train
    split's own rule file numbers its rules independently); empty: the demos use `rules`."""

    def rules_of_demos(self) -> "TaskData":
        """The demonstrations' rules as a task of their own, to list rules for a demo from."""
        return TaskData(name=self.name, samples=(), rules=self.demo_rules or self.rules)


def rule_text(rule: Rule, form: RuleForm, source: str = "") -> str:
    """The rule in the requested form; FOL for a rule that has none is an error naming it."""
    if form == "nl":
        return rule.nl
    if rule.fol is None:
        where = f"{source}: " if source else ""
        raise DataError(f"{where}rule {rule.id} has no FOL form (use natural-language rules)")
    return rule.fol


def check_rules_exist(samples: tuple[Sample, ...], rules: Mapping[str, Rule], source: str) -> None:
    """Every sample's golden (and counterfactual) rule must be in the rule set."""
    for sample in samples:
        for rule_id in (sample.golden_rule, sample.cf_golden_rule):
            if rule_id is not None and rule_id not in rules:
                raise DataError(
                    f"{source}: sample {sample.id}: rule {rule_id} is not in the rule set"
                )
