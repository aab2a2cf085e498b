"""--repeats averages per sample first: n is the number of samples, not of evaluations."""

from pathlib import Path

import pytest
from pydantic import JsonValue

import rulebench
from rulebench.core.stats import Proportion
from rulebench.engine.store.database import Store
from rulebench.engine.summary import summarize
from rulebench.inferential.analysis import Record, accuracy, accuracy_by, cell_of, to_records
from rulebench.inferential.echo_baseline import echo_cells, echo_records, index_run
from rulebench.inferential.pairing import compare
from rulebench.report.build import inferential_report

from tests.stored_json import json_at, json_list

SAMPLES = 5
# Kinship and StringGame, golden rule: the echoed prompt holds the golden rule's conclusion, so
# an echo gets some items right and some wrong (an interval away from 0% and 100%).
CONFIG: dict[str, JsonValue] = {
    "tasks": ["kinship", "stringgame"],
    "per_group": SAMPLES,
    "grid": {"quantities": ["golden"]},
}


def run_echo(store: Path, repeats: int) -> str:
    config: dict[str, JsonValue] = {**CONFIG, "repeats": repeats}
    return rulebench.run("inferential", "scripted/echo", config=config, store=store).run.id


def overall(db: Store, run_id: str) -> Proportion:
    [row] = summarize(db.tally_results(run_id), grouped=False)
    assert row.accuracy is not None
    return row.accuracy


def test_identical_repeats_give_the_interval_of_one_evaluation(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    once, thrice = run_echo(store, 1), run_echo(store, 3)
    with Store(store, readonly=True) as db:
        records_once = to_records(list(db.iter_results(once)), "robust")
        records_thrice = to_records(list(db.iter_results(thrice)), "robust")
        assert len(records_thrice) == 3 * len(records_once) == 3 * 2 * SAMPLES
        # runs show / export: the summary the store aggregates.
        assert overall(db, thrice) == overall(db, once)
        assert overall(db, thrice).n == 2 * SAMPLES
        by_cell = summarize(db.tally_results(thrice, "cell"), grouped=True)
        assert [row.accuracy.n for row in by_cell if row.accuracy] == [SAMPLES, SAMPLES, 10]
        # The report's numbers: the analyses over the records.
        numbers = inferential_report(db, [once, thrice]).numbers
        config = db.get_run(thrice).config["task_config"]
        assert isinstance(config, dict)
        echoes = echo_cells(echo_records(db.iter_results(thrice), index_run(config)))
    assert {cell.robust.n for cell in echoes.values()} == {SAMPLES}
    assert accuracy(records_thrice) == accuracy(records_once)
    assert accuracy(records_thrice).n == 2 * SAMPLES
    assert 0 < accuracy(records_once).value < 1  # else the interval could not narrow anyway
    cells = accuracy_by(records_thrice, cell_of)
    assert cells == accuracy_by(records_once, cell_of)
    assert {p.n for p in cells.values()} == {SAMPLES}
    [first, second] = json_list(numbers["runs"])
    assert json_at(first, "overall") == json_at(second, "overall")
    assert json_at(first, "overall", "n") == 2 * SAMPLES


def record(sample: str, correct: bool, repeat: int) -> Record:
    return Record(
        "kinship", "few", "nl", False, False, correct, None, 1, 3, sample_id=sample, repeat=repeat
    )


def test_repeats_that_disagree_count_as_a_fraction_of_their_sample() -> None:
    # Sample a: right in 2 of 3 repeats; b: never; c: always -> (2/3 + 0 + 1) / 3.
    outcomes = {"a": (True, True, False), "b": (False,) * 3, "c": (True,) * 3}
    records = [
        record(sample, correct, repeat)
        for sample, seq in outcomes.items()
        for repeat, correct in enumerate(seq)
    ]
    found = accuracy(records)
    assert found.n == 3
    assert found.value == pytest.approx((2 / 3 + 0 + 1) / 3)


def test_records_without_a_sample_id_count_one_each() -> None:
    records = [Record("kinship", "few", "nl", False, False, c, None, 1, 3) for c in (True, False)]
    assert accuracy(records).n == 2


def test_differences_between_cells_count_samples_not_repeats() -> None:
    def side(cot: bool, outcomes: tuple[bool, ...], repeats: int) -> list[Record]:
        return [
            Record("kinship", "few", "nl", cot, False, c, None, 1, 3, sample_id=f"s{i}", repeat=r)
            for i, c in enumerate(outcomes)
            for r in range(repeats)
        ]

    cot, direct = (True, True, False, True), (False, True, False, False)
    delta = compare(side(True, cot, 3), side(False, direct, 3))
    assert delta is not None
    assert (delta.n_with, delta.n_without) == (len(cot), len(direct))
    assert delta.value == pytest.approx(0.5)
