"""The long tail: the rarest labels that together make up at least 10% of the questions."""

from hypothesis import given
from hypothesis import strategies as st

from rulebench.inferential.analysis import Record
from rulebench.inferential.long_tail import label_counts, long_tail, rarest_labels

from tests.inferential.records import make_record


def test_rarest_labels_are_taken_fewest_first_until_they_reach_ten_percent() -> None:
    counts = {"O1": 50, "O2": 30, "O3": 6, "O4": 5, "O5": 5, "O6": 4}  # 100 questions
    # 4 (O6) + 5 (O4) = 9% is short of 10%; O5 (tie with O4, by name) brings it to 14%.
    assert rarest_labels(counts) == ("O6", "O4", "O5")
    assert rarest_labels({"a": 10, "b": 90}) == ("a",)  # exactly 10% is enough
    assert rarest_labels({}) == ()


@given(st.dictionaries(st.sampled_from("abcdefgh"), st.integers(1, 50), min_size=1))
def test_the_tail_reaches_ten_percent_and_no_label_could_be_dropped(counts: dict[str, int]) -> None:
    tail = rarest_labels(counts)
    total = sum(counts.values())
    assert sum(counts[label] for label in tail) >= 0.1 * total
    assert sum(counts[label] for label in tail[:-1]) < 0.1 * total
    assert max(counts[label] for label in tail) <= min(
        [counts[label] for label in counts if label not in tail], default=total
    )


def record(sample_id: str, gold: str, correct: bool, **kw: object) -> Record:
    return make_record(correct, **({"task": "salad", "sample_id": sample_id, "gold": gold} | kw))


def test_long_tail_accuracy_per_cell_counts_each_question_once() -> None:
    golds = ["O1"] * 18 + ["O2"] * 2  # O2 is 10% of the questions
    records = [record(f"s{i}", gold, gold == "O1") for i, gold in enumerate(golds)]
    records += [r._replace(quantity="golden") for r in records]  # a second cell, same questions
    records.append(record("k", "x", True, task="kinship"))  # not SALAD: no long tail
    assert label_counts([r for r in records if r.task == "salad"]) == {"O1": 18, "O2": 2}
    [(task, tail)] = long_tail(records).items()
    assert task == "salad" and tail.labels == ("O2",) and tail.questions == 20
    assert tail.share == 0.1 and len(tail.cells) == 2
    for everything, rare in tail.cells.values():
        assert (everything.value, everything.n) == (0.9, 20)
        assert (rare.value, rare.n) == (0.0, 2) and rare.high > 0.0  # Wilson: never zero width
