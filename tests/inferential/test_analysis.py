import pytest

from rulebench.core.items import ItemResult, Outcome
from rulebench.inferential.analysis import (
    Record,
    accuracy,
    classify_error,
    cot_deltas,
    dimensions,
    error_split,
    to_records,
)


def record(correct: bool | None, **kw: object) -> Record:
    base = dict(
        task="kinship",
        quantity="few",
        form="nl",
        cot=False,
        counterfactual=False,
        cited=None,
        golden_index=2,
        listed=3,
    )
    base.update(kw)
    return Record(correct=correct, **base)  # type: ignore[arg-type]


def test_errors_split_into_triggering_execution_and_no_citation() -> None:
    assert classify_error(record(False, cited=2)) == "execution"
    assert classify_error(record(False, cited=1)) == "triggering"
    assert classify_error(record(False, cited=None)) == "no citation"
    assert classify_error(record(False, cited=9)) == "no citation"  # not a listed rule
    assert classify_error(record(True, cited=1)) is None
    assert classify_error(record(None)) is None
    split = error_split(
        [record(False, cited=2), record(False, cited=1), record(False, cited=3), record(True)]
    )
    assert split["kinship"]["triggering"].value == pytest.approx(2 / 3)
    assert split["kinship"]["execution"].n == 3


def test_refusals_do_not_count_and_deltas_compare_cot() -> None:
    records = [
        record(True),
        record(False),
        record(None),
        record(True, cot=True),
        record(True, cot=True),
    ]
    assert accuracy(records).n == 4
    delta = cot_deltas(records)[("kinship", "few")]
    assert delta.value == pytest.approx(0.5) and delta.low < delta.value < delta.high


def test_dimensions_average_their_cells() -> None:
    records = [
        record(True, quantity="golden"),
        record(False, quantity="golden"),
        record(True, quantity="golden", task="stringgame"),
        record(False, quantity="all"),
        record(True, form="fol"),
        record(True, cot=True),
        record(False, counterfactual=True),
    ]
    found = {d.name: d for d in dimensions(records)}
    # Executing: mean of the kinship golden cell (0.5) and the stringgame golden cell (1.0).
    assert found["Executing"].value == pytest.approx(0.75) and found["Executing"].cells == 2
    assert found["Triggering"].value == 0.0 and found["Formal"].value == 1.0
    assert found["Applying"].value == 1.0 and found["Counterfactual"].value == 0.0


def test_records_rescore_in_either_mode_and_skip_errors() -> None:
    details = {
        "paper": {"answer": None, "correct": False, "refused": False},
        "robust": {"answer": "x", "correct": True, "refused": False},
        "cited_rule": 1,
    }
    meta = {
        "task": "kinship",
        "quantity": "few",
        "form": "nl",
        "cot": False,
        "counterfactual": False,
        "golden_index": 1,
        "listed_rules": ["a", "b", "c"],
    }
    results = [
        ItemResult(item_id="1", outcome=Outcome(score=1.0, details=details), metadata=meta),
        ItemResult(item_id="2", error="HTTP 500", metadata=meta),
    ]
    [paper] = to_records(results, "paper")
    [robust] = to_records(results, "robust")
    assert (
        paper.correct is False
        and robust.correct is True
        and robust.cited == 1
        and robust.listed == 3
    )
