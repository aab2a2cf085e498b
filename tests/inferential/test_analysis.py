import pytest

from rulebench.core.items import ItemResult, Outcome
from rulebench.inferential.analysis import (
    Record,
    accuracy,
    accuracy_by,
    cell_of,
    classify_error,
    dimensions,
    error_split,
    to_records,
)
from rulebench.inferential.pairing import cot_deltas

from tests.inferential.records import make_record


def record(correct: bool | None, **kw: object) -> Record:
    return make_record(correct, **({"golden_index": 2} | kw))


def test_errors_split_into_triggering_execution_and_no_citation() -> None:
    assert classify_error(record(False, cited=2)) == "execution"
    assert classify_error(record(False, cited=1)) == "triggering"
    assert classify_error(record(False, cited=None)) == "no citation"
    assert classify_error(record(False, cited=9)) == "no citation"  # not a listed rule
    assert classify_error(record(True, cited=1)) is None
    assert classify_error(record(None)) is None
    cited = [record(False, cited=2), record(False, cited=1), record(False, cited=3), record(True)]
    split = error_split([r._replace(cite_rule=True) for r in cited])
    assert split["kinship"]["triggering"].value == pytest.approx(2 / 3)
    assert split["kinship"]["execution"].n == 3


def test_error_split_counts_only_prompts_that_asked_for_the_rule() -> None:
    # Without --cite-rule a reply that names no rule is not a "no citation" error: it was
    # never asked to cite one. With a golden rule only, no cited rule can be a noise rule.
    asked = record(False, cited=1, cite_rule=True)
    assert error_split([record(False, cited=1), record(False)]) == {}
    assert error_split([asked._replace(quantity="golden")]) == {}
    assert error_split([asked])["kinship"]["triggering"].n == 1


def test_error_split_counts_samples_not_repeats() -> None:
    # Two questions, each wrong three times: the noise-rule citation of the first and the
    # golden citation of the second weigh one sample each, however often they repeat.
    asked = record(False, cite_rule=True)
    wrong = [asked._replace(sample_id="q1", cited=1, repeat=repeat) for repeat in range(3)] + [
        asked._replace(sample_id="q2", cited=2, repeat=repeat) for repeat in range(3)
    ]
    split = error_split(wrong)["kinship"]
    assert split["triggering"].n == 2
    assert split["triggering"].value == pytest.approx(0.5)
    assert split == error_split([wrong[0], wrong[3]])["kinship"]


def test_refusals_do_not_count_and_deltas_compare_cot_within_one_shot_count() -> None:
    records = [
        record(True),
        record(False),
        record(None),
        record(True, cot=True),
        record(True, cot=True),
        record(False, cot=True, shots=2),  # no direct 2-shot cell: no delta for it
    ]
    assert accuracy(records).n == 5
    [(cell, delta)] = cot_deltas(records).items()
    assert cell.cot and cell.shots == 0 and delta.pairs is None  # no sample ids: unpaired
    assert delta.value == pytest.approx(0.5) and delta.low < delta.value < delta.high


def test_cells_keep_cot_shots_citation_and_layout_apart() -> None:
    variants = [
        record(True),
        record(True, cot=True),
        record(True, shots=2),
        record(True, cite_rule=True),
        record(True, layout="shared"),
        record(True, counterfactual=True),
    ]
    assert len(accuracy_by(variants, cell_of)) == len(variants)


def test_dimensions_average_their_own_cells() -> None:
    records = [
        record(True, quantity="golden"),
        record(False, quantity="golden"),
        record(True, quantity="golden", task="stringgame"),
        record(False, quantity="all"),
        record(True, form="fol"),
        record(True, cot=True),
        record(False, cot=True, quantity="none"),  # CoT without rules applies no rule
        record(False, counterfactual=True),
    ]
    found = {d.name: d for d in dimensions(records)}
    # Executing: mean of the kinship golden cell (0.5) and the stringgame golden cell (1.0).
    assert found["Executing"].value == pytest.approx(0.75) and found["Executing"].cells == 2
    assert found["Triggering"].value == 0.0 and found["Formal"].value == 1.0
    assert found["Applying"].value == 1.0 and found["Applying"].cells == 1
    assert found["Counterfactual"].value == 0.0


def test_unmeasured_dimensions_are_left_out_and_extremes_have_width() -> None:
    found = {d.name: d for d in dimensions([record(True, quantity="golden")] * 5)}
    assert set(found) == {"Executing"}  # not a Triggering of 0
    executing = found["Executing"]
    assert executing.value == 1.0 and executing.high == 1.0
    assert 0.5 < executing.low < 1.0  # Wilson width at 100%, not a zero-width interval
    all_wrong = dimensions([record(False, quantity="all")] * 5)[0]
    assert all_wrong.low == 0.0 and 0.0 < all_wrong.high < 0.5


def test_records_rescore_in_either_mode_and_skip_errors() -> None:
    details = {
        "paper": {"answer": None, "correct": False, "refused": False},
        "robust": {"answer": "x", "correct": True, "refused": False},
        "cited_rule": 1,
    }
    meta = {
        "task": "kinship",
        "sample_id": "s1",
        "quantity": "few",
        "form": "nl",
        "cot": False,
        "shots": 2,
        "counterfactual": False,
        "cite_rule": True,
        "layout": "per-item",
        "golden_index": 1,
        "listed_rules": ["a", "b", "c"],
        "gold": "aunt",
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
    assert (robust.shots, robust.cite_rule, robust.sample_id, robust.gold) == (
        2,
        True,
        "s1",
        "aunt",
    )
