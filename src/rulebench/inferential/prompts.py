"""Rendering a Sample under a Setting into the prompt text: a pure function of its inputs."""

import random
from collections.abc import Sequence

from rulebench.core.errors import ConfigError
from rulebench.core.rules import Sample, TaskData, rule_text
from rulebench.inferential.registry import task_definition
from rulebench.inferential.rule_lists import RuleListing, golden_of, list_rules
from rulebench.inferential.settings import Setting
from rulebench.inferential.template import PromptTemplate


def template_for(task: str) -> PromptTemplate:
    """The prompt template of a task."""
    return task_definition(task).template


def pick_demos(data: TaskData, setting: Setting, evaluated: set[str]) -> tuple[Sample, ...]:
    """`setting.shots` demonstrations from the task's demo pool, seeded, never evaluated items."""
    if not setting.shots:
        return ()
    pool = [demo for demo in data.demos if demo.id not in evaluated]
    if len(pool) < setting.shots:
        raise ConfigError(
            f"{data.name}: {setting.shots}-shot needs {setting.shots} demonstrations, "
            f"the task has {len(pool)} (official tasks take them from a train or validation "
            "split, or from rulebench's written set for the dataset)"
        )
    return tuple(random.Random(f"{setting.seed}:demos:{data.name}").sample(pool, setting.shots))


def render_prompt(
    sample: Sample,
    setting: Setting,
    listing: RuleListing,
    demos: Sequence[Sample],
    data: TaskData,
) -> str:
    """The whole prompt; the parts shared by every item of a setting come first.

    Order: task line, counterfactual line, demonstrations (each with its own rules), the
    numbered rules, the question, then what to write. Under the shared layout everything up to
    the question is byte-identical across items.
    """
    template = template_for(sample.task)
    parts = [template.task_line]
    if setting.counterfactual or sample.counterfactual:
        parts.append(template.cf_line)
    demo_rules = data.rules_of_demos()
    for number, demo in enumerate(demos, start=1):
        parts.append(render_demo(demo, number, setting, template, demo_rules))
    if listing.rules:
        parts.append(rule_block(listing, setting, template, sample.task))
    rng = random.Random(f"{setting.seed}:question:{sample.id}")
    parts.append(f"{template.question_header}\n{template.show_question(sample, rng)}")
    parts.append(" ".join(_instructions(setting, template, bool(listing.rules))))
    return "\n\n".join(parts)


def rule_block(listing: RuleListing, setting: Setting, template: PromptTemplate, task: str) -> str:
    """The numbered rules, under the template's header."""
    lines = [
        f"{template.rule_word} {number}: {rule_text(rule, setting.form, task)}"
        for number, rule in enumerate(listing.rules, start=1)
    ]
    return template.rules_header + "\n" + "\n".join(lines)


def render_demo(
    demo: Sample, number: int, setting: Setting, template: PromptTemplate, rules: TaskData
) -> str:
    """A worked example laid out like the item: its own rules, the question, the answer.

    Its rule list is drawn like an item's (same count, golden at a seeded position, noise of
    the golden rule's kind); with CoT it shows the reasoning that applies the golden rule,
    with rule citation the "Applied rule: N" line; counterfactual settings use the demo's
    counterfactual rule and gold where it has them.
    """
    listing = list_rules(demo, setting, rules)
    _, gold = golden_of(demo, setting)
    rng = random.Random(f"{setting.seed}:question:{demo.id}")
    lines = [f"{template.example_header} {number}"]
    golden_number = None if listing.golden_index is None else listing.golden_index + 1
    if listing.rules:
        lines.append(rule_block(listing, setting, template, demo.task))
    lines.append(f"{template.question_header}\n{template.show_question(demo, rng)}")
    if listing.golden_index is not None and golden_number is not None:
        if setting.cite_rule:
            lines.append(f"Applied rule: {golden_number}")
        if setting.cot:
            rule = rule_text(listing.rules[listing.golden_index], setting.form, demo.task)
            lines.append(template.reasoning(f"{template.rule_word} {golden_number}: {rule}", gold))
    lines.append(template.demo_answer(gold, golden_number))
    return "\n".join(lines)


def _instructions(setting: Setting, template: PromptTemplate, has_rules: bool) -> list[str]:
    steps = []
    if setting.cot:
        steps.append(template.cot_line)
    if setting.cite_rule and has_rules:
        steps.append(template.cite_line)
    steps.append(template.answer_line)
    return steps
