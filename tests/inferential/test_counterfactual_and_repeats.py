"""Counterfactual means counterfactual; prompts never change under one id; repeats are items."""

from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.core.items import Item
from rulebench.inferential.rule_lists import list_rules
from rulebench.inferential.settings import Grid, Setting
from rulebench.inferential.task import InferentialTask
from rulebench.inferential.tasks import kinship

OFFICIAL = Path(__file__).parent / "tasks" / "fixtures" / "official"


def items_of(**config: object) -> list[Item]:
    return InferentialTask(**config).items()


def test_counterfactual_on_a_task_without_a_counterfactual_form_is_an_error() -> None:
    grid = Grid(counterfactual=(True,)).model_dump()
    with pytest.raises(ConfigError, match="'stringgame' has no counterfactual form"):
        items_of(tasks=["stringgame"], per_group=3, grid=grid)
    with pytest.raises(ConfigError, match="'clutrr' has no counterfactual form"):
        items_of(tasks=["clutrr"], data_root=str(OFFICIAL), grid=grid)


def test_a_cf_dataset_is_counterfactual_whatever_the_flag_and_never_doubled() -> None:
    single = items_of(tasks=["clutrr-cf"], data_root=str(OFFICIAL))
    both = items_of(
        tasks=["clutrr-cf"], data_root=str(OFFICIAL), grid=Grid(counterfactual=(False, True))
    )
    assert [i.id for i in both] == [i.id for i in single]
    assert all(i.metadata["counterfactual"] for i in both)


def test_factual_prompts_list_factual_rules_and_counterfactual_prompts_counterfactual_ones() -> (
    None
):
    data = kinship.generate(60, seed=5)
    checked = 0
    for seed in range(20):
        for quantity in ("few", "all"):
            for counterfactual in (False, True):
                setting = Setting(quantity=quantity, counterfactual=counterfactual, seed=seed)
                for sample in data.samples:
                    listing = list_rules(sample, setting, data)
                    assert {rule.counterfactual for rule in listing.rules} == {counterfactual}
                    assert len(listing.rules) == setting.count_for("kinship")
                    checked += 1
    assert checked == 20 * 2 * 2 * 60


def test_an_item_id_changes_whenever_its_prompt_does() -> None:
    grid = Grid(quantities=("all",)).model_dump()
    small = {
        i.metadata["sample_id"]: i for i in items_of(tasks=["kinship"], per_group=10, grid=grid)
    }
    large = {
        i.metadata["sample_id"]: i for i in items_of(tasks=["kinship"], per_group=40, grid=grid)
    }
    for sample_id, item in small.items():
        other = large[sample_id]
        assert (item.id == other.id) == (item.messages == other.messages)


def test_repeats_are_separate_items_with_their_index() -> None:
    items = items_of(tasks=["stringgame"], per_group=5, repeats=3)
    assert len(items) == 15 and len({i.id for i in items}) == 15
    assert sorted(i.repeat for i in items) == [0] * 5 + [1] * 5 + [2] * 5
    assert all(i.metadata["repeat"] == i.repeat for i in items)


def test_a_generated_prompt_does_not_depend_on_how_many_samples_are_generated() -> None:
    grid = Grid(quantities=("few", "all"), counterfactual=(False, True)).model_dump()
    small = {i.id: i for i in items_of(tasks=["kinship"], per_group=8, grid=grid)}
    large = {i.id: i for i in items_of(tasks=["kinship"], per_group=60, grid=grid)}
    assert set(small) <= set(large)  # same samples, same prompts, so same ids
    for item_id, item in small.items():
        assert large[item_id].messages == item.messages
