from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebench.core.errors import DataError
from rulebench.core.rules import TaskData
from rulebench.inferential.official import load_official
from rulebench.inferential.rule_lists import golden_of, list_rules, shared_listings
from rulebench.inferential.settings import Grid, Layout, Quantity, Setting

from tests.inferential.conftest import make_task
from tests.stored_json import json_list

TASK = make_task()
FIXTURES = Path(__file__).parent / "tasks" / "fixtures" / "official"


@given(st.sampled_from(["golden", "few", "all"]), st.booleans(), st.integers(0, 10_000))
@settings(max_examples=200, deadline=None)
def test_listing_has_the_golden_rule_once_and_never_an_applicable_or_twin_rule(
    quantity: Quantity, cf: bool, seed: int
) -> None:
    setting = Setting(quantity=quantity, counterfactual=cf, seed=seed)
    for sample in TASK.samples:
        listing = list_rules(sample, setting, TASK)
        ids = [rule.id for rule in listing.rules]
        golden, _ = golden_of(sample, setting)
        assert len(ids) == len(set(ids)) == setting.count_for("kinship")
        assert listing.golden_index is not None and ids[listing.golden_index] == golden
        forbidden = {
            sample.golden_rule,
            sample.cf_golden_rule,
            *json_list(sample.metadata["applicable_rules"]),
        } - {golden}
        assert not forbidden & set(ids)


def test_listing_is_seeded_and_positions_vary(task_data: TaskData) -> None:
    sample = task_data.samples[0]
    a = list_rules(sample, Setting(quantity="few", seed=1), task_data)
    assert a == list_rules(sample, Setting(quantity="few", seed=1), task_data)
    positions = {
        list_rules(sample, Setting(quantity="all", seed=s), task_data).golden_index
        for s in range(30)
    }
    assert len(positions) > 5


def test_counts_follow_task_defaults_and_overrides() -> None:
    assert Setting(quantity="few").count_for("law") == 4
    assert Setting(quantity="all").count_for("law") == 20
    assert Setting(quantity="all").count_for("theoremQA") == 5
    assert Setting(quantity="all").count_for("kinship") == 30
    assert Setting(quantity="few", rule_count=7).count_for("kinship") == 7
    assert Setting(quantity="none").count_for("kinship") == 0


def test_no_rules_setting_lists_nothing(task_data: TaskData) -> None:
    listing = list_rules(task_data.samples[0], Setting(quantity="none"), task_data)
    assert listing.rules == () and listing.golden_index is None


def test_shared_layout_gives_groups_one_list_that_is_unambiguous(task_data: TaskData) -> None:
    setting = Setting(quantity="all", layout="shared", seed=3)
    listings = shared_listings(task_data.samples, setting, task_data)
    lists = {tuple(r.id for r in listing.rules) for listing in listings.values()}
    assert len(lists) < len(task_data.samples)  # items really share lists
    for sample in task_data.samples:
        listing = listings[sample.id]
        ids = [r.id for r in listing.rules]
        assert listing.golden_index is not None and ids[listing.golden_index] == sample.golden_rule
        others = set(json_list(sample.metadata["applicable_rules"])) | {sample.cf_golden_rule}
        assert not (others - {sample.golden_rule}) & set(ids)


def test_grid_enumerates_the_product_but_skips_meaningless_cells() -> None:
    grid = Grid(
        quantities=("none", "few"),
        forms=("nl", "fol"),
        cot=(False, True),
        counterfactual=(False, True),
    )
    labels = [s.label() for s in grid.settings()]
    assert "none/nl/direct" in labels and "few/fol/cot/cf" in labels
    assert not any(
        label.startswith("none/fol") or (label.startswith("none") and "cf" in label)
        for label in labels
    )
    assert len(labels) == 2 + 8


@pytest.mark.parametrize("layout", ["per-item", "shared"])
def test_fol_for_a_rule_file_without_fol_names_the_file_and_rule(layout: Layout) -> None:
    data = load_official(FIXTURES, "ulogic-cf")  # its rule files give NL only
    sample = data.samples[0]
    setting = Setting(quantity="golden", form="fol", layout=layout)
    expected = rf"^ulogic-cf/test_rule\.json: rule {sample.golden_rule} has no FOL form .*--form nl"
    with pytest.raises(DataError, match=expected):
        if layout == "shared":
            shared_listings(data.samples, setting, data)
        else:
            list_rules(sample, setting, data)
    assert list_rules(sample, setting.model_copy(update={"form": "nl"}), data).rules


def test_fol_check_names_a_generated_task_by_its_name(task_data: TaskData) -> None:
    sample = task_data.samples[0].model_copy(update={"golden_rule": "r0"})
    with pytest.raises(DataError, match=r"^kinship: rule r0 has no FOL form"):
        list_rules(sample, Setting(quantity="golden", form="fol"), task_data)
