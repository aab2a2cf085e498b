"""A tiny hand-made task for testing settings, rule listings, prompts and analyses."""

import pytest

from rulebench.core.rules import Rule, Sample, TaskData


def make_task(n_rules: int = 40, n_samples: int = 6) -> TaskData:
    rules = {
        f"r{i}": Rule(
            id=f"r{i}",
            nl=f"If the colour is c{i}, then answer a{i}.",
            fol=f"colour(x, c{i}) => answer(a{i})",
        )
        for i in range(n_rules)
    }
    rules["r0"] = Rule(id="r0", nl="If the colour is c0, then answer a0.")  # no FOL form
    samples = tuple(
        Sample(
            id=f"s{i}",
            task="kinship",
            question=f"The colour is c{i + 1}. What is the answer?",
            gold=f"a{i + 1}",
            golden_rule=f"r{i + 1}",
            candidates=tuple(f"a{j}" for j in range(1, 5)),
            cf_gold=f"b{i + 1}",
            cf_golden_rule=f"cf{i + 1}",
            metadata={
                "hops": 2 + i % 3,
                "applicable_rules": [f"r{i + 1}", f"r{(i + 2) % n_rules}"],
            },
        )
        for i in range(n_samples)
    )
    for i in range(n_samples):
        rules[f"cf{i + 1}"] = Rule(
            id=f"cf{i + 1}",
            nl=f"If the colour is c{i + 1}, then answer b{i + 1}.",
            fol=f"colour(x, c{i + 1}) => answer(b{i + 1})",
        )
    demos = tuple(s.model_copy(update={"id": f"d{s.id}"}) for s in samples[:3])
    return TaskData(name="kinship", samples=samples, rules=rules, demos=demos)


@pytest.fixture
def task_data() -> TaskData:
    return make_task()
