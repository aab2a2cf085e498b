"""How each official dataset's records become samples, and the quirks of the release."""

import json
import logging
import shutil
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError, DataError
from rulebench.core.rules import rule_text
from rulebench.inferential.official import load_official
from rulebench.inferential.tasks import clutrr, law
from rulebench.inferential.tasks.theoremqa import choice_letters
from rulebench.inferential.tasks.ulogic import ANSWERS

FIXTURES = Path(__file__).parent / "fixtures" / "official"


def test_clutrr_question_gold_and_the_18_labels() -> None:
    data = load_official(FIXTURES, "clutrr")
    nephew = data.samples[1]
    assert nephew.question.endswith("Who is Finn to Dora?")
    assert nephew.gold == "nephew"  # the file has "nephew " with a trailing space
    assert nephew.golden_rule == "1"
    assert nephew.candidates == clutrr.LABELS
    assert len(clutrr.LABELS) == 18
    assert nephew.metadata == {}
    assert data.rules["1"].fol == "brother(A,B) ∧ son(B,C) => nephew(A,C)"


def test_clutrr_cf_adds_stepson_and_stepdaughter() -> None:
    data = load_official(FIXTURES, "clutrr-cf")
    assert [s.gold for s in data.samples] == ["stepdaughter", "stepson", "stepdaughter"]
    assert data.samples[0].candidates == (*clutrr.LABELS, "stepson", "stepdaughter")
    assert all(s.counterfactual for s in data.samples)
    assert len({s.id for s in data.samples}) == 3


def test_factual_and_counterfactual_ids_differ_for_the_same_story() -> None:
    factual = load_official(FIXTURES, "clutrr").samples[0]
    counterfactual = load_official(FIXTURES, "clutrr-cf").samples[0]
    assert factual.question == counterfactual.question
    assert factual.id != counterfactual.id


def test_family_module_refuses_another_family() -> None:
    with pytest.raises(ConfigError, match="this loader reads: clutrr, clutrr-cf"):
        clutrr.load(FIXTURES, "deer")


def test_deer_gold_letter_lowercased_with_four_candidates() -> None:
    data = load_official(FIXTURES, "deer")
    assert [s.gold for s in data.samples] == ["b", "d", "a"]
    assert data.samples[0].candidates == ("a", "b", "c", "d")
    assert "\nA. " in data.samples[0].question


def test_theoremqa_choices_true_false_items_and_answer_metadata() -> None:
    data = load_official(FIXTURES, "theoremQA")
    numeric, true_item, false_item, integer, option = data.samples
    assert numeric.candidates == ("a", "b", "c", "d") and numeric.gold == "d"
    assert true_item.candidates == ("a", "b", "c") and true_item.gold == "a"
    assert false_item.candidates == ("a", "b", "c") and false_item.gold == "c"
    assert "a Unknown. b True. c False" in false_item.question
    assert option.candidates == ("a", "b", "c", "d")
    answers = [s.metadata["Answer"] for s in data.samples]
    assert answers == [5.0, True, False, 7, "(a)"]
    assert [type(a) for a in answers] == [float, bool, bool, int, str]
    assert integer.metadata["Answer_type"] == "integer"
    assert numeric.metadata["field"] == "Math"
    assert numeric.metadata["subfield"] == "Algebra"
    assert len(data.demos) == 2


@pytest.mark.parametrize(
    ("question", "letters"),
    [
        ("Q?\nChoices:\na 1.0. b 2.0. c 3.0. d 4.0", ("a", "b", "c", "d")),
        ("Q?\nChoices:\na False. b True. c Unknown", ("a", "b", "c")),
        (
            "Q?\nChoices:\na $x. b$. b $y$. c $z$. d $w$. Which option is correct?",
            ("a", "b", "c", "d"),
        ),
        ("Choices: in a sentence.\nChoices:\na 4.7e-34. b 9.4e-34", ("a", "b")),
        ("Q without choices?", None),
        ("Q?\nChoices:\nb 1. c 2", None),
    ],
)
def test_choice_letters(question: str, letters: tuple[str, ...] | None) -> None:
    assert choice_letters(question) == letters


def test_theoremqa_record_without_a_choice_line(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "theoremQA", tmp_path / "theoremQA")
    path = tmp_path / "theoremQA" / "test_data.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    records[2]["input"] = "Is it positive definite?"
    path.write_text(json.dumps(records), encoding="utf-8")
    with pytest.raises(
        DataError, match=r"test_data\.json: record 2: field 'input': no choice line"
    ):
        load_official(tmp_path, "theoremQA")


def test_ulogic_gold_is_positive_underscore_not_positive_nor_output() -> None:
    data = load_official(FIXTURES, "ulogic")
    disagreeing = data.samples[1]
    assert disagreeing.metadata["positive"] is True
    assert disagreeing.metadata["positive_"] is False
    assert disagreeing.gold == "false"
    assert [s.gold for s in data.samples] == ["true", "false", "false"]
    assert disagreeing.candidates == ANSWERS
    assert disagreeing.metadata["output"] == "Maria can drive the red scooter."
    assert (
        disagreeing.metadata["rule in NL"]
        == "If Person X owns Vehicle Y, then Person X can drive Vehicle Y."
    )
    assert disagreeing.metadata["depth"] == 1
    assert disagreeing.metadata["domain"] == "affordance"
    assert disagreeing.metadata["structure"] == "disjunctive"
    assert disagreeing.metadata["instruction"] == "Giving a Context, please answer the Question."
    assert data.rules["9"].fol is not None


def test_ulogic_cf_rules_have_nl_only_and_repeated_keys_warn_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    shutil.copytree(FIXTURES / "ulogic-cf", tmp_path / "ulogic-cf")
    with caplog.at_level(logging.WARNING):
        data = load_official(tmp_path, "ulogic-cf")
        load_official(tmp_path, "ulogic-cf")
    repeats = [r for r in caplog.records if "more than once" in r.getMessage()]
    # One warning per file (test_rule.json, and train_rule.json read for the demos), not per load.
    assert sorted(r.getMessage().split(":")[0] for r in repeats) == [
        "ulogic-cf/test_rule.json",
        "ulogic-cf/train_rule.json",
    ]
    assert "3 object keys" in repeats[0].getMessage()
    assert set(data.rules) == {"5", "9", "14"}
    assert all(rule.fol is None for rule in data.rules.values())
    with pytest.raises(DataError, match=r"ulogic-cf/test_rule\.json: rule 9 has no FOL form"):
        rule_text(data.rules["9"], "fol", "ulogic-cf/test_rule.json")


def test_ulogic_cf_keeps_a_rule_equal_to_the_factual_one_with_flipped_gold() -> None:
    factual = load_official(FIXTURES, "ulogic")
    counterfactual = load_official(FIXTURES, "ulogic-cf")
    assert counterfactual.rules["9"].nl == factual.rules["9"].nl
    assert (factual.samples[1].gold, counterfactual.samples[1].gold) == ("false", "false")
    assert (factual.samples[0].gold, counterfactual.samples[0].gold) == ("true", "false")
    assert counterfactual.samples[2].gold == "true"


def test_law_strips_gold_and_shows_gold_first_among_three_charges() -> None:
    data = load_official(FIXTURES, "law")
    theft, robbery, fraud = data.samples
    assert theft.gold == "盗窃"
    assert theft.question.startswith("某市人民检察院指控")
    assert "已知以下指控" not in theft.question
    assert "instruction" not in theft.metadata
    # 诈骗 shares both characters with 合同诈骗 (2/4) and 信用卡诈骗 (2/5); see test_law.py.
    assert fraud.candidates == ("诈骗", "合同诈骗", "信用卡诈骗")
    assert len(robbery.candidates) == 3 and robbery.candidates[0] == "抢劫"
    assert set(data.rules) == {"264", "263", "266", "224", "196", "234"}


def test_law_charge_list_is_every_gold_charge_longest_first() -> None:
    charges = law.charge_list(FIXTURES)
    assert charges == ("信用卡诈骗", "合同诈骗", "故意伤害", "抢劫", "盗窃", "诈骗")


def test_law_train_uses_the_test_rule_file_because_its_own_is_an_empty_list() -> None:
    assert json.loads((FIXTURES / "law" / "train_rule.json").read_text()) == []
    train = load_official(FIXTURES, "law", "train")
    test = load_official(FIXTURES, "law")
    assert len(train.samples) == 6
    assert train.rules == test.rules
    # Law demos come from train minus the records whose input is a test question.
    assert [d.gold for d in test.demos] == ["合同诈骗", "信用卡诈骗", "故意伤害"]


def test_law_empty_rule_list_is_an_error_where_rules_are_not_shared(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "deer", tmp_path / "deer")
    (tmp_path / "deer" / "test_rule.json").write_text("[]")
    with pytest.raises(DataError, match=r"deer/test_rule.json: an empty list, not a rule set"):
        load_official(tmp_path, "deer")


def test_law_cf_question_has_instruction_and_fol_rules_stay_factual() -> None:
    data = load_official(FIXTURES, "law-cf")
    factual = load_official(FIXTURES, "law")
    sample = data.samples[0]
    assert sample.question.startswith("已知以下指控[")
    assert sample.question.endswith("内有现金2000元。\r\n")
    assert sample.gold == "故意伤害"
    assert "盗窃" in sample.candidates and len(sample.candidates) == 6
    assert data.rules["264"].fol == factual.rules["264"].fol
    assert data.rules["264"].nl != factual.rules["264"].nl
    assert len(data.demos) == 2  # written ones: the release has no law-cf train split


def test_salad_bare_int_rule_and_category_gold() -> None:
    data = load_official(FIXTURES, "salad")
    assert [(s.golden_rule, s.gold) for s in data.samples] == [
        ("0", "O1"),
        ("1", "O2"),
        ("4", "O5"),
    ]
    assert data.samples[0].candidates == ("O1", "O2", "O3", "O4", "O5", "O6")
    cf = load_official(FIXTURES, "salad-cf")
    assert cf.samples[0].gold == "O6" and cf.samples[0].counterfactual


def test_salad_rule_must_be_a_bare_int(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "salad", tmp_path / "salad")
    path = tmp_path / "salad" / "test_data.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    records[1]["rule"] = [1]
    path.write_text(json.dumps(records), encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_official(tmp_path, "salad")
    assert str(info.value) == (
        "salad/test_data.json: record 1: field 'rule': Input should be a valid integer"
    )
