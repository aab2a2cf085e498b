"""Matching items across cells: generated twins pair, separate datasets do not."""

import pytest

from rulebench.inferential.analysis import Record
from rulebench.inferential.pairing import (
    compare,
    cot_deltas,
    factuality_comparisons,
    family,
    match_items,
)

from tests.inferential.records import make_record


def record(correct: bool | None, sample_id: str = "", **kw: object) -> Record:
    base = {"quantity": "golden", "listed": 1, "sample_id": sample_id}
    return make_record(correct, **(base | kw))


def test_family_strips_the_counterfactual_suffix() -> None:
    assert family("clutrr-cf") == "clutrr" and family("kinship") == "kinship"


def test_items_match_by_task_and_sample_in_order_of_occurrence() -> None:
    first = [record(True, "a"), record(True, "a"), record(False, "b"), record(True, "")]
    second = [record(False, "a"), record(True, "a"), record(None, "b"), record(True, "c")]
    # "a" twice pairs in order; "b" is a refusal on one side; "" and "c" have no partner.
    assert match_items(first, second) == [(True, False), (True, True)]
    other_task = [r._replace(task="clutrr") for r in second]
    assert match_items(first, other_task) == []


def test_generated_twins_pair_and_official_sets_compare_unpaired() -> None:
    factual = [record(i < 8, f"s{i}") for i in range(10)]
    twins = [r._replace(counterfactual=True, correct=i < 3) for i, r in enumerate(factual)]
    official = [record(i < 5, f"s{i}", task="clutrr") for i in range(10)]
    official_cf = [
        record(i < 2, f"cf{i}", task="clutrr-cf", counterfactual=True) for i in range(12)
    ]
    found = factuality_comparisons([*factual, *twins, *official, *official_cf])
    kinship, clutrr = (found[c] for c in sorted(found, key=lambda c: c.task, reverse=True))
    assert kinship.counterfactual_task == "kinship" and kinship.delta.pairs == 10
    assert kinship.delta.value == pytest.approx(-0.5)
    assert clutrr.counterfactual_task == "clutrr-cf" and clutrr.delta.pairs is None
    assert clutrr.factual.n == 10 and clutrr.counterfactual.n == 12
    assert clutrr.delta.value == pytest.approx(2 / 12 - 0.5)


def test_a_counterfactual_cell_without_its_factual_setting_has_no_gap() -> None:
    cf_only = [record(True, "s", counterfactual=True)]
    cot_factual = [record(True, "s", cot=True)]  # another setting: not its counterpart
    assert factuality_comparisons([*cf_only, *cot_factual]) == {}


def test_cot_deltas_pair_the_same_questions() -> None:
    direct = [record(i % 2 == 0, f"s{i}") for i in range(10)]
    cot = [r._replace(cot=True, correct=True) for r in direct]
    [(cell, delta)] = cot_deltas([*direct, *cot]).items()
    assert cell.cot and delta.pairs == 10 and delta.value == pytest.approx(0.5)
    assert compare(cot, direct) == delta
