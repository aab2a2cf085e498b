"""Every inferential task is one complete definition, found by name through the registry."""

import dataclasses
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.core.rules import TaskData
from rulebench.inferential.data import judging_context, load_task
from rulebench.inferential.definition import TaskDefinition
from rulebench.inferential.judge import judge
from rulebench.inferential.registry import (
    GENERATED,
    OFFICIAL,
    TASKS,
    task_definition,
    task_names,
)

FIXTURES = Path(__file__).parent / "tasks" / "fixtures" / "official"


@pytest.mark.parametrize("name", list(TASKS))
def test_every_definition_is_complete(name: str) -> None:
    definition = task_definition(name)
    assert isinstance(definition, TaskDefinition)
    assert definition.name == name
    assert definition.summary.strip()
    assert (definition.generate is None) != (definition.load is None)
    assert definition.is_generated == (name in GENERATED)
    template = definition.template
    for text in (template.task_line, template.answer_line, template.cot_line):
        assert text.strip()
    assert template.write_answer("x")
    assert definition.judges.fixes, "robust mode names its fixes"
    few, all_ = definition.rule_counts
    assert 1 <= few <= all_
    assert definition.paper_shots >= 1
    assert len(set(definition.answers)) == len(definition.answers)


@pytest.mark.parametrize("name", list(TASKS))
def test_every_task_loads_and_its_gold_is_judged_right(name: str) -> None:
    """A definition's parts fit: its data, its template's answer format and its judges."""
    data = load_task(name, 3, 0, FIXTURES)
    assert isinstance(data, TaskData) and data.samples
    definition = task_definition(name)
    context = judging_context(name, FIXTURES)
    for sample in data.samples:
        if definition.answers:
            assert sample.gold.lower() in {a.lower() for a in definition.answers}
        reply = definition.template.write_answer(sample.gold)
        for mode in ("paper", "robust"):
            assert judge(name, reply, sample, mode, context).correct, (name, mode, reply)


def test_names_are_listed_once_generated_first() -> None:
    assert task_names() == (*GENERATED, *OFFICIAL)
    assert not set(GENERATED) & set(OFFICIAL)


def test_an_unknown_task_suggests_the_closest_and_lists_all() -> None:
    with pytest.raises(ConfigError) as caught:
        task_definition("theoremqa")
    message = str(caught.value)
    assert "Did you mean 'theoremQA'?" in message
    assert all(name in message for name in TASKS)


def test_a_definition_is_frozen() -> None:
    definition = task_definition("kinship")
    with pytest.raises(dataclasses.FrozenInstanceError):
        definition.name = "other"  # type: ignore[misc]


def test_only_law_needs_a_judging_context() -> None:
    needing = [name for name in TASKS if task_definition(name).judging_context is not None]
    assert needing == ["law"]
    assert judging_context("law", FIXTURES)
    assert judging_context("law", None) == ()
