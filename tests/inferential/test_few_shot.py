"""Few-shot works for every task: each demonstration shows its own rules, laid out like the item."""

from pathlib import Path

import pytest

from rulebench.inferential.prompts import template_for
from rulebench.inferential.settings import Grid
from rulebench.inferential.task import InferentialTask

OFFICIAL = Path(__file__).parent / "tasks" / "fixtures" / "official"
DATASETS = [
    "clutrr", "clutrr-cf", "deer", "theoremQA", "ulogic", "ulogic-cf", "law", "law-cf", "salad",
    "salad-cf",
]  # fmt: skip


def prompts(task: str, **grid: object) -> list[str]:
    config = Grid.model_validate({"quantities": ("few",)} | grid)
    inferential = InferentialTask(
        tasks=[task], per_group=4, data_root=str(OFFICIAL), grid=config.model_dump()
    )
    return [item.messages[0].content for item in inferential.items()]


@pytest.mark.parametrize("dataset", DATASETS)
def test_one_shot_works_for_every_official_dataset(dataset: str) -> None:
    template = template_for(dataset)
    for prompt in prompts(dataset, shots=1, cot=(True,)):
        before, _, demo = prompt.partition(f"{template.example_header} 1\n")
        assert before and demo, prompt
        # The demonstration's own rule block comes first; the item's rules come after it.
        assert demo.startswith(template.rules_header + "\n" + template.rule_word + " 1: ")
        assert demo.count(template.rules_header + "\n") == 2
        item_rules = demo.index(template.rules_header + "\n", 1)
        assert template.question_header in demo[:item_rules]  # the demo's own question


@pytest.mark.parametrize("dataset", ["deer", "law-cf", "salad", "salad-cf"])
def test_two_shot_works_where_the_release_has_only_a_test_split(dataset: str) -> None:
    header = template_for(dataset).example_header
    for prompt in prompts(dataset, shots=2):
        assert f"{header} 1\n" in prompt and f"{header} 2\n" in prompt


def test_demonstrations_cite_their_golden_rule_and_follow_counterfactual_settings() -> None:
    grid = Grid(quantities=("few",), cot=(True,), counterfactual=(True,), shots=2, cite_rule=True)
    task = InferentialTask(tasks=["kinship"], per_group=3, seed=2, grid=grid.model_dump())
    data = task.data("kinship")
    by_nl = {rule.nl: rule for rule in data.rules.values()}
    for item in task.items():
        prompt = item.messages[0].content
        for chunk in prompt.split("Example ")[1:3]:
            lines = chunk.split("\n")
            question_at = lines.index("Question:")
            listed = [line.split(": ", 1)[1] for line in lines[:question_at] if line[:5] == "Rule "]
            assert len(listed) == 3
            assert all(by_nl[text].counterfactual for text in listed)
            cited = next(line for line in lines if line.startswith("Applied rule: "))
            number = int(cited.removeprefix("Applied rule: "))
            reasoning = next(line for line in lines if line.startswith("The rule that applies"))
            assert f"Rule {number}: {listed[number - 1]}" in reasoning
