"""Law (CAIL2018) as the paper ran it: upstream's distractor ranking and a readable list.

The charge names below are real CAIL2018 charges, in the order the release's law records list
them (a subset of the 136); the ranking facts come from the formula, worked by hand.
"""

import json
import random
import shutil
from fractions import Fraction
from pathlib import Path

from rulebench.core.rules import Sample
from rulebench.inferential.judge import judge
from rulebench.inferential.official import load_official
from rulebench.inferential.tasks import law
from rulebench.inferential.tasks.law.template import TEMPLATE, show_case

FIXTURES = Path(__file__).parent / "fixtures" / "official"

RELEASE_ORDER = (
    "保险诈骗",
    "串通投标",
    "破坏交通设施",
    "盗窃、侮辱尸体",
    "假冒注册商标",
    "行贿",
    "利用影响力受贿",
    "盗窃",
    "诈骗",
    "集资诈骗",
    "贷款诈骗",
    "破坏交通工具",
    "信用卡诈骗",
    "单位受贿",
    "受贿",
    "合同诈骗",
    "盗窃、抢夺枪支、弹药、爆炸物",
)


def test_similarity_is_shared_distinct_characters_over_the_candidates_own() -> None:
    assert law.similarity("受贿", "行贿") == Fraction(1, 2)
    assert law.similarity("受贿", "利用影响力受贿") == Fraction(2, 7)
    assert law.similarity("诈骗", "信用卡诈骗") == Fraction(2, 5)
    assert law.similarity("盗窃", "盗窃、侮辱尸体") == Fraction(2, 7)  # 、 counts as a character
    assert law.similarity("盗窃", "串通投标") == 0


def test_distractors_are_the_two_most_similar_with_ties_in_release_order() -> None:
    # The paper's own example (its CAIL2018 prompt figure): three charges tie at 1/6, and
    # the two listed first in the release are shown.
    assert law.rank_distractors("串通投标", RELEASE_ORDER) == ["破坏交通设施", "假冒注册商标"]
    # A ratio, not a count: 利用影响力受贿 shares as many characters as 单位受贿 but has more
    # of its own, and 行贿 shares one of two.
    assert law.rank_distractors("受贿", RELEASE_ORDER) == ["行贿", "单位受贿"]
    # 保险诈骗, 集资诈骗, 贷款诈骗 and 合同诈骗 tie at 1/2 (信用卡诈骗 is 2/5): release order.
    assert law.rank_distractors("诈骗", RELEASE_ORDER) == ["保险诈骗", "集资诈骗"]
    assert law.rank_distractors("盗窃", RELEASE_ORDER) == [
        "盗窃、侮辱尸体",
        "盗窃、抢夺枪支、弹药、爆炸物",
    ]
    assert law.rank_distractors("诈骗", (*RELEASE_ORDER, "诈骗"), count=1) == ["保险诈骗"]


def test_law_ranks_over_the_records_own_charge_list_in_its_order(tmp_path: Path) -> None:
    theft, _, fraud = load_official(FIXTURES, "law").samples
    # Nothing shares a character with 盗窃 here: every other charge ties at 0, so the two
    # listed first in the record's instruction are shown.
    assert theft.candidates == ("盗窃", "抢劫", "诈骗")
    assert fraud.candidates == ("诈骗", "合同诈骗", "信用卡诈骗")
    # Without a usable instruction, every gold charge in the files (longest first) is ranked.
    shutil.copytree(FIXTURES / "law", tmp_path / "law")
    path = tmp_path / "law" / "test_data.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    records[0]["instruction"] = ""
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    theft = load_official(tmp_path, "law").samples[0]
    assert theft.candidates == ("盗窃", "信用卡诈骗", "合同诈骗")


def law_sample(candidates: tuple[str, ...]) -> Sample:
    return Sample(
        id="s1",
        task="law",
        question="被告人某甲盗窃枪支一支。",
        gold=candidates[0],
        golden_rule="127",
        candidates=candidates,
    )


def test_candidates_are_shown_one_numbered_charge_a_line_in_a_seeded_order() -> None:
    sample = law_sample(("盗窃、抢夺枪支、弹药、爆炸物", "盗窃、侮辱尸体", "盗窃"))
    shown = show_case(sample, random.Random(3))
    lines = shown.splitlines()
    assert lines[0].startswith("候选指控")
    numbered = lines[1:4]
    assert [line.split(". ", 1)[0] for line in numbered] == ["1", "2", "3"]
    assert sorted(line.split(". ", 1)[1] for line in numbered) == sorted(sample.candidates)
    assert lines[4] == sample.question
    assert shown == show_case(sample, random.Random(3))
    orders = {show_case(sample, random.Random(seed)) for seed in range(20)}
    assert len(orders) > 1


def test_paper_mode_reads_replies_to_the_numbered_list() -> None:
    sample = law_sample(("盗窃、抢夺枪支、弹药、爆炸物", "盗窃、侮辱尸体", "盗窃"))
    charges = law.charge_list(FIXTURES) + sample.candidates
    answer = TEMPLATE.write_answer(sample.gold)
    assert judge("law", answer, sample, "paper", charges).correct
    assert judge("law", f"2. {sample.gold}", sample, "paper", charges).correct
    # The longer charge containing 盗窃 is deleted first, as the released scorer does.
    wrong = law_sample(("盗窃", "盗窃、侮辱尸体", "抢劫"))
    assert not judge("law", "指控：盗窃、侮辱尸体", wrong, "paper", charges).correct
    assert judge("law", "指控：盗窃", wrong, "paper", charges).correct
