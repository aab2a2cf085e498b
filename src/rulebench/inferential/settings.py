"""The experiment settings of RuleBench: how many rules, in which form, with or without CoT..."""

import itertools
from collections.abc import Iterator
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rulebench.core.errors import ConfigError
from rulebench.core.rules import RuleForm, TaskData
from rulebench.inferential.registry import task_definition

Quantity = Literal["none", "golden", "few", "all"]
Layout = Literal["per-item", "shared"]
QUANTITIES: tuple[Quantity, ...] = ("none", "golden", "few", "all")

PAPER_MAX_TOKENS = 500
"""The paper's decoding: temperature 0 and up to 500 new tokens."""


class Setting(BaseModel):
    """One cell of the grid; rendering a Sample under a Setting is a pure function."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    quantity: Quantity = "few"
    rule_count: int | None = Field(default=None, ge=1)
    """Rules listed in all for few/all; None means the task's default (3 and 30 for most)."""
    form: RuleForm = "nl"
    cot: bool = False
    """Chain of thought: apply the rule verbally before answering."""
    shots: int = Field(default=0, ge=0)
    counterfactual: bool = False
    """Use each generated sample's counterfactual rule and gold (official *-cf data are
    counterfactual tasks of their own and ignore this flag)."""
    layout: Layout = "per-item"
    """per-item: each item gets its own seeded rule order. shared: all items of the run share
    one rule list placed first, so a prefix cache can reuse it (applied to all-rule cells)."""
    cite_rule: bool = False
    """Behaviour analysis: the model names the rule it applied ("Applied rule: N") first."""
    seed: int = 0
    """Seeds noise-rule draws, golden positions and demonstrations; recorded with results."""

    def count_for(self, task: str) -> int:
        """How many rules this setting lists for a task (golden included)."""
        if self.quantity == "none":
            return 0
        if self.quantity == "golden":
            return 1
        if self.rule_count is not None:
            return self.rule_count
        few, all_ = task_definition(task).rule_counts
        return few if self.quantity == "few" else all_

    def label(self) -> str:
        """A short readable name, e.g. "few/nl/cot/2-shot/cf"."""
        parts = [self.quantity, self.form, "cot" if self.cot else "direct"]
        if self.shots:
            parts.append(f"{self.shots}-shot")
        if self.counterfactual:
            parts.append("cf")
        if self.cite_rule:
            parts.append("cite")
        return "/".join(parts)


class Grid(BaseModel):
    """A product of setting values: the experiment grid, or any subset of it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    quantities: tuple[Quantity, ...] = ("few",)
    forms: tuple[RuleForm, ...] = ("nl",)
    cot: tuple[bool, ...] = (False,)
    counterfactual: tuple[bool, ...] = (False,)
    shots: int = 0
    paper_shots: bool = False
    """Use the paper's demonstration count per task (its definition's `paper_shots`: 2, or 1
    for theoremQA and ulogic)."""
    layout: Layout = "per-item"
    cite_rule: bool = False
    seed: int = 0

    def shots_for(self, task: str) -> int:
        """Demonstrations per prompt for a task."""
        return task_definition(task).paper_shots if self.paper_shots else self.shots

    def settings(self) -> Iterator[Setting]:
        """Every combination, in a stable order."""
        for quantity, form, cot, cf in itertools.product(
            self.quantities, self.forms, self.cot, self.counterfactual
        ):
            if quantity == "none" and (form == "fol" or cf):
                continue  # without rules, form and factuality do not exist
            yield Setting(
                quantity=quantity,
                form=form,
                cot=cot,
                shots=self.shots,
                counterfactual=cf,
                # Only all-rule prompts are long enough for a shared prefix to matter.
                layout=self.layout if quantity == "all" else "per-item",
                cite_rule=self.cite_rule,
                seed=self.seed,
            )


def has_counterfactual_form(data: TaskData) -> bool:
    """Whether a task can be asked counterfactually: a -cf dataset, or generated twins."""
    return all(s.counterfactual or s.cf_gold is not None for s in data.samples)


def is_counterfactual_set(data: TaskData) -> bool:
    """An official *-cf dataset: every rule and gold is counterfactual already."""
    return bool(data.samples) and all(sample.counterfactual for sample in data.samples)


def paper_design(seed: int, layout: Layout = "per-item") -> tuple[Grid, ...]:
    """The paper's experiments as grids (section 4, appendix C), at its decoding.

    1-2: every rule quantity x NL/FOL, zero-shot; 3: golden/few NL, few-shot, CoT off and on;
    4: counterfactual sets, golden/few NL, few-shot CoT; 5: behaviour analysis on
    counterfactual sets (few rules, few-shot CoT, the model cites the rule it applies).
    """
    common = {"seed": seed, "layout": layout}
    few_shot = {"paper_shots": True, **common}
    return (
        Grid(quantities=QUANTITIES, forms=("nl", "fol"), **common),
        Grid(quantities=("golden", "few"), cot=(False, True), **few_shot),
        Grid(quantities=("golden", "few"), cot=(True,), counterfactual=(True,), **few_shot),
        Grid(quantities=("few",), cot=(True,), counterfactual=(True,), cite_rule=True, **few_shot),
    )


def design_settings(task: str, data: TaskData, grids: tuple[Grid, ...]) -> list[Setting]:
    """The settings of several grids for one task, each once (the paper design's union).

    The paper runs its factual experiments on factual datasets and its counterfactual ones on
    counterfactual sets: a -cf dataset skips the factual grids, a task without a
    counterfactual form the counterfactual ones.
    """
    chosen: list[Setting] = []
    for grid in grids:
        if is_counterfactual_set(data) and grid.counterfactual == (False,):
            continue
        for setting in settings_for(task, data, grid, strict=False):
            if setting not in chosen:
                chosen.append(setting)
    return chosen


def settings_for(task: str, data: TaskData, grid: Grid, strict: bool = True) -> Iterator[Setting]:
    """The grid's settings as they apply to one task, so no item claims what it is not.

    A -cf dataset is counterfactual whatever the flag says (its factual and counterfactual
    settings would be the same prompts, so they are one); a task without a counterfactual
    form takes only factual settings, and (when `strict`) asking for counterfactual only there
    is an error.
    """
    if strict and grid.counterfactual == (True,) and not has_counterfactual_form(data):
        raise ConfigError(
            f"task '{task}' has no counterfactual form (its rules and gold are factual): "
            "use its -cf dataset (clutrr-cf, ulogic-cf, law-cf) or the generated kinship "
            "task, or --counterfactual off"
        )
    seen: set[Setting] = set()
    for setting in grid.settings():
        setting = setting.model_copy(update={"shots": grid.shots_for(task)})
        if is_counterfactual_set(data):
            setting = setting.model_copy(update={"counterfactual": True})
        elif setting.counterfactual and not has_counterfactual_form(data):
            continue
        if setting not in seen:
            seen.add(setting)
            yield setting
