"""Shared behaviour of the official-data loaders: files, errors, ids, demos, tuning helper.

The fixtures under fixtures/official/ are small files of ours in exactly the release's format;
malformed variants are written into a copy in tmp_path.
"""

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rulebench.core.errors import ConfigError, DataError
from rulebench.inferential.official import drop_test_overlap, load_official
from rulebench.inferential.registry import OFFICIAL as DATASETS

FIXTURES = Path(__file__).parent / "fixtures" / "official"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A writable copy of the fixture data root."""
    copy = tmp_path / "data"
    shutil.copytree(FIXTURES, copy)
    return copy


def edit_records(path: Path, change: Callable[[list[Any]], object]) -> None:
    """Rewrite a data file after changing its records in place."""
    records = json.loads(path.read_text(encoding="utf-8"))
    change(records)
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")


@pytest.mark.parametrize("dataset", list(DATASETS))
def test_every_dataset_loads_with_rules_for_every_sample(dataset: str) -> None:
    data = load_official(FIXTURES, dataset)
    assert data.name == dataset
    assert data.samples
    demo_rules = data.rules_of_demos().rules
    for sample in data.samples + data.demos:
        assert sample.task == dataset
        assert sample.counterfactual == dataset.endswith("-cf")
        assert sample.golden_rule in (demo_rules if sample in data.demos else data.rules)
        assert not sample.candidates or sample.gold.lower() in {
            c.lower() for c in sample.candidates
        }


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [("theoremqa", "theoremQA"), ("clutr", "clutrr"), ("ulogic_cf", "ulogic-cf")],
)
def test_unknown_dataset_suggests_the_closest_and_lists_all(name: str, suggestion: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_official(FIXTURES, name)
    message = str(info.value)
    assert f"unknown official dataset '{name}'" in message
    assert f"Did you mean '{suggestion}'?" in message
    assert "Known datasets: clutrr, clutrr-cf, deer, theoremQA" in message


def test_missing_dataset_folder_lists_the_folders_there(tmp_path: Path) -> None:
    (tmp_path / "deer").mkdir()
    with pytest.raises(DataError, match=r"clutrr: no such folder \(.* holds: deer\)"):
        load_official(tmp_path, "clutrr")


def test_missing_split_lists_the_splits_present() -> None:
    with pytest.raises(DataError) as info:
        load_official(FIXTURES, "deer", "train")
    assert str(info.value) == "deer/train_data.json: no such file (splits present: test)"


def test_data_file_without_its_rule_file(root: Path) -> None:
    (root / "clutrr" / "test_rule.json").unlink()
    with pytest.raises(DataError) as info:
        load_official(root, "clutrr")
    assert str(info.value) == (
        "clutrr/test_data.json has no rule file: clutrr/test_rule.json is missing"
    )


def test_rule_id_missing_from_the_rule_file_names_both_files_and_the_record(root: Path) -> None:
    def change(records: list[dict[str, object]]) -> None:
        records[3]["rule"] = [412]

    edit_records(root / "clutrr" / "test_data.json", change)
    with pytest.raises(DataError) as info:
        load_official(root, "clutrr")
    assert str(info.value) == (
        "clutrr/test_data.json: record 3: field 'rule': id 412 is not in clutrr/test_rule.json"
    )


def test_truncated_json_gives_line_and_column(root: Path) -> None:
    path = root / "deer" / "test_data.json"
    path.write_text(path.read_text(encoding="utf-8")[:300], encoding="utf-8")
    with pytest.raises(
        DataError, match=r"^deer/test_data\.json: invalid JSON at line \d+, column \d+: "
    ):
        load_official(root, "deer")


def test_data_file_must_be_a_list(root: Path) -> None:
    (root / "deer" / "test_data.json").write_text('{"instruction": ""}', encoding="utf-8")
    with pytest.raises(DataError, match="expected a JSON list of records, got an object"):
        load_official(root, "deer")


@pytest.mark.parametrize("dataset", ["deer", "clutrr"])
def test_an_empty_data_file_is_a_data_error_naming_it(root: Path, dataset: str) -> None:
    # Else the run has 0 items and reports "completed" with nothing measured.
    (root / dataset / "test_data.json").write_text("[]", encoding="utf-8")
    with pytest.raises(DataError, match=rf"^{dataset}/test_data\.json: no records"):
        load_official(root, dataset)


@pytest.mark.parametrize("number", ["NaN", "Infinity", "1e400"])
def test_non_finite_numbers_are_rejected_with_line_and_column(root: Path, number: str) -> None:
    path = root / "deer" / "test_data.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    records[1]["score"] = "PLACEHOLDER"
    text = json.dumps(records, indent=1).replace('"PLACEHOLDER"', number)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(
        DataError, match=rf"^deer/test_data\.json: {number} at line \d+, column \d+ is"
    ):
        load_official(root, "deer")


def test_lone_surrogates_in_a_data_file_are_repaired_with_a_warning(
    root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = root / "deer" / "test_data.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    records[0]["input"] += " \ud83d"  # json.dumps writes the escape
    path.write_text(json.dumps(records), encoding="utf-8")
    data = load_official(root, "deer")
    assert "\ufffd" in data.samples[0].question
    assert "deer/test_data.json: the file held 1 lone UTF-16 surrogate" in caplog.text


def test_record_that_is_not_an_object(root: Path) -> None:
    edit_records(root / "deer" / "test_data.json", lambda records: records.insert(2, ["b"]))
    with pytest.raises(DataError) as info:
        load_official(root, "deer")
    assert str(info.value) == "deer/test_data.json: record 2: expected an object, got a list"


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("input", 7, "field 'input': Input should be a valid string"),
        ("output", None, "field 'output': Input should be a valid string"),
        ("rule", [0, 1], "field 'rule': List should have at most 1 item after validation"),
        ("rule", ["0"], "field 'rule[0]': Input should be a valid integer"),
        ("rule", 0, "field 'rule': Input should be a valid list"),
    ],
)
def test_mistyped_core_field(root: Path, field: str, value: object, expected: str) -> None:
    def change(records: list[dict[str, object]]) -> None:
        records[1][field] = value

    edit_records(root / "clutrr" / "test_data.json", change)
    with pytest.raises(DataError) as info:
        load_official(root, "clutrr")
    assert str(info.value).startswith(f"clutrr/test_data.json: record 1: {expected}")


def test_missing_core_field(root: Path) -> None:
    edit_records(root / "deer" / "test_data.json", lambda records: records[0].pop("output"))
    with pytest.raises(DataError) as info:
        load_official(root, "deer")
    assert str(info.value) == "deer/test_data.json: record 0: field 'output': Field required"


def test_string_rule_ids_are_checked_as_strings(root: Path) -> None:
    def change(records: list[dict[str, object]]) -> None:
        records[0]["rule"] = [5]

    edit_records(root / "ulogic" / "test_data.json", change)
    with pytest.raises(
        DataError, match=r"record 0: field 'rule\[0\]': Input should be a valid string"
    ):
        load_official(root, "ulogic")


def test_malformed_rule_entry_names_the_rule(root: Path) -> None:
    path = root / "deer" / "test_rule.json"
    rules = json.loads(path.read_text(encoding="utf-8"))
    rules["1"] = {"FOL": "P(x)"}
    path.write_text(json.dumps(rules), encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_official(root, "deer")
    assert str(info.value) == "deer/test_rule.json: rule 1: field 'NL': Field required"


def test_gold_outside_the_answer_set_names_the_record(root: Path) -> None:
    def change(records: list[dict[str, object]]) -> None:
        records[4]["output"] = "cousin"

    edit_records(root / "clutrr" / "test_data.json", change)
    with pytest.raises(DataError) as info:
        load_official(root, "clutrr")
    assert str(info.value) == (
        "clutrr/test_data.json: record 4: field 'output': "
        "'cousin' is not one of the 18 kinship labels"
    )


def test_other_files_in_the_folder_are_ignored() -> None:
    # clutrr/backup/test_data.json is not even JSON, rule_index.json is not a rule file.
    assert (FIXTURES / "clutrr" / "backup" / "test_data.json").is_file()
    assert len(load_official(FIXTURES, "clutrr").samples) == 5


def test_exact_duplicates_are_kept_with_distinct_stable_ids() -> None:
    first = load_official(FIXTURES, "clutrr")
    again = load_official(FIXTURES, "clutrr")
    ids = [sample.id for sample in first.samples]
    assert len(first.samples) == 5  # counts include the duplicate
    assert first.samples[0].question == first.samples[2].question
    assert len(set(ids)) == 5
    assert ids == [sample.id for sample in again.samples]
    assert all(re.fullmatch(r"[0-9a-f]{16}", sample_id) for sample_id in ids)


def test_ids_do_not_depend_on_position(root: Path) -> None:
    before = {s.question: s.id for s in load_official(root, "deer").samples}
    edit_records(root / "deer" / "test_data.json", lambda records: records.reverse())
    after = {s.question: s.id for s in load_official(root, "deer").samples}
    assert before == after


def test_demos_come_from_train_with_the_train_rule_file() -> None:
    data = load_official(FIXTURES, "clutrr")
    questions = {sample.question for sample in data.samples}
    # A demonstration shows its own rules, so a train rule need not be in the test rule file
    # (train rule 1 is in none); the last train record asks a test question and is skipped.
    assert [(demo.gold, demo.golden_rule) for demo in data.demos] == [
        ("nephew", "0"),
        ("mother", "1"),
        ("daughter-in-law", "2"),
    ]
    train_rules = json.loads((FIXTURES / "clutrr" / "train_rule.json").read_text())
    assert {k: r.nl for k, r in data.demo_rules.items()} == {
        k: v["NL"] for k, v in train_rules.items()
    }
    assert all(demo.question not in questions for demo in data.demos)


def test_demos_never_come_from_the_evaluated_split() -> None:
    validation = load_official(FIXTURES, "clutrr", "validation")
    train = load_official(FIXTURES, "clutrr", "train")
    assert {demo.task for demo in validation.demos} == {"clutrr"}
    assert validation.demos and not {d.question for d in validation.demos} & {
        s.question for s in validation.samples
    }
    # Evaluating train, the demos come from validation.
    validation_questions = {s.question for s in validation.samples}
    assert train.demos and {d.question for d in train.demos} <= validation_questions


@pytest.mark.parametrize("dataset", ["deer", "law-cf", "salad", "salad-cf"])
def test_datasets_without_train_or_validation_get_written_demos(dataset: str) -> None:
    data = load_official(FIXTURES, dataset)
    assert len(data.demos) >= 2
    asked = {sample.question for sample in data.samples}
    for demo in data.demos:
        assert demo.question not in asked
        assert demo.counterfactual == dataset.endswith("-cf")
        assert demo.golden_rule in data.demo_rules
        assert not demo.candidates or demo.gold.lower() in {c.lower() for c in demo.candidates}


def test_demos_fall_back_to_validation() -> None:
    assert len(load_official(FIXTURES, "clutrr-cf").demos) == 1


def test_at_most_sixteen_demos_spread_over_the_pool(root: Path) -> None:
    path = root / "deer" / "train_data.json"
    records = [
        {
            "instruction": "",
            "input": f"Question {i}?\nA. x\nB. y\nC. z\nD. w",
            "output": "a",
            "rule": [0],
        }
        for i in range(40)
    ]
    path.write_text(json.dumps(records), encoding="utf-8")
    shutil.copy(root / "deer" / "test_rule.json", root / "deer" / "train_rule.json")
    demos = load_official(root, "deer").demos
    assert [d.question.split("?")[0] for d in demos] == [
        f"Question {i * 40 // 16}" for i in range(16)
    ]


def test_drop_test_overlap_removes_train_questions_asked_in_test() -> None:
    train = load_official(FIXTURES, "law", "train")
    test = load_official(FIXTURES, "law")
    kept = drop_test_overlap(train, test)
    assert len(train.samples) == 6
    assert len(kept.samples) == 3
    assert not {s.question for s in kept.samples} & {s.question for s in test.samples}
    assert kept.rules == train.rules


def test_missing_data_root(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"nowhere: no such folder; pass the release's data"):
        load_official(tmp_path / "nowhere", "deer")


def test_shared_rule_set_falls_back_to_the_test_rules(root: Path) -> None:
    (root / "ulogic" / "train_rule.json").unlink()
    train = load_official(root, "ulogic", "train")
    assert train.rules == load_official(root, "ulogic").rules


def test_shared_rule_set_without_test_rules_names_both_files(root: Path) -> None:
    (root / "law" / "test_rule.json").unlink()
    with pytest.raises(DataError) as info:
        load_official(root, "law", "train")
    assert str(info.value) == (
        "law/train_data.json has no rules: law/train_rule.json is an empty list "
        "and law/test_rule.json has none either"
    )


def test_a_broken_demo_split_is_reported_when_loading_test(root: Path) -> None:
    (root / "clutrr" / "train_rule.json").unlink()
    with pytest.raises(DataError, match=r"clutrr/train_data\.json has no rule file"):
        load_official(root, "clutrr")
