import pytest

from rulebench.core.errors import ConfigError, DataError
from rulebench.core.rules import TaskData
from rulebench.inferential.prompts import pick_demos, render_prompt
from rulebench.inferential.rule_lists import list_rules, shared_listings
from rulebench.inferential.settings import Setting


def render(task_data: TaskData, setting: Setting, index: int = 1) -> str:
    sample = task_data.samples[index]
    demos = pick_demos(task_data, setting, {s.id for s in task_data.samples})
    return render_prompt(sample, setting, list_rules(sample, setting, task_data), demos, task_data)


def test_prompt_numbers_the_listed_rules_in_the_requested_form(task_data: TaskData) -> None:
    nl = render(task_data, Setting(quantity="few", seed=2))
    assert "Rule 1: If the colour is" in nl and "Rule 3:" in nl and "Rule 4:" not in nl
    fol = render(task_data, Setting(quantity="few", form="fol", seed=2))
    assert (
        "=> answer(" in fol and "If the colour" not in fol.split("Question:")[0].split("Rules:")[1]
    )


def test_fol_for_a_rule_without_one_is_an_error_naming_it(task_data: TaskData) -> None:
    sample = task_data.samples[0].model_copy(update={"golden_rule": "r0"})
    setting = Setting(quantity="golden", form="fol")
    with pytest.raises(DataError, match="rule r0 has no FOL form"):
        render_prompt(sample, setting, list_rules(sample, setting, task_data), (), task_data)


def test_settings_change_the_prompt_as_documented(task_data: TaskData) -> None:
    plain = render(task_data, Setting(quantity="none"))
    assert (
        "Rules:" not in plain
        and "The colour is c2" in plain
        and plain.rstrip().endswith('"Answer: aunt".')
    )
    cf = render(task_data, Setting(quantity="golden", counterfactual=True))
    assert "contradict common sense" in cf and "then answer b2" in cf
    cot = render(task_data, Setting(quantity="golden", cot=True, shots=2))
    assert "step by step" in cot and "Example 2" in cot and "The rule that applies is" in cot
    cite = render(task_data, Setting(quantity="few", cite_rule=True))
    assert "Applied rule: N" in cite


def test_demos_are_seeded_and_never_evaluated_items(task_data: TaskData) -> None:
    setting = Setting(quantity="few", shots=2, seed=5)
    demos = pick_demos(task_data, setting, {s.id for s in task_data.samples})
    assert demos == pick_demos(task_data, setting, {s.id for s in task_data.samples})
    assert not {d.id for d in demos} & {s.id for s in task_data.samples}
    with pytest.raises(ConfigError, match="needs 4 demonstrations"):
        pick_demos(task_data, Setting(shots=4), set())


def test_shared_layout_prompts_share_everything_before_the_question(task_data: TaskData) -> None:
    setting = Setting(quantity="all", layout="shared")
    listings = shared_listings(task_data.samples, setting, task_data)
    prompts = [render_prompt(s, setting, listings[s.id], (), task_data) for s in task_data.samples]
    shared = [p for p in prompts if listings[task_data.samples[0].id].rules[0].nl in p]
    prefixes = {p.split("Question:")[0] for p in shared}
    assert len(shared) > 1 and len(prefixes) == 1
