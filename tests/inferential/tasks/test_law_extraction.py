"""CAIL2018 charges (law, law-cf): paper quirks pinned, robust fixes checked."""

import json

import pytest

from rulebench.core.rules import Sample
from rulebench.inferential.extraction import Judgement
from rulebench.inferential.judge import judge

CHARGES = ("诈骗", "合同诈骗", "盗窃", "抢劫", "故意伤害", "故意杀人", "危险驾驶")
CANDIDATES = ("诈骗", "盗窃", "抢劫")


def both(
    reply: str,
    gold: str,
    charges: tuple[str, ...] = CHARGES,
    candidates: tuple[str, ...] = CANDIDATES,
    task: str = "law",
) -> tuple[tuple[str | None, bool], ...]:
    sample = Sample(
        id="s", task=task, question="q", gold=gold, golden_rule="1", candidates=candidates
    )
    judgements: tuple[Judgement, ...] = tuple(
        judge(task, reply, sample, mode, charges) for mode in ("paper", "robust")
    )
    return tuple((j.answer, j.correct) for j in judgements)


def test_naming_the_gold_is_right_in_both_modes() -> None:
    assert both("被告人的行为构成盗窃罪。", " 盗窃") == (("盗窃", True), ("盗窃", True))


def test_paper_scores_several_charges_robust_wants_exactly_one() -> None:
    assert both("盗窃、抢劫", "盗窃") == (("盗窃", True), (None, False))


def test_a_longer_charge_containing_the_gold_is_wrong_in_both_modes() -> None:
    assert both("合同诈骗", "诈骗") == (("合同诈骗", False), (None, False))
    assert both("合同诈骗", "诈骗", candidates=("诈骗", "合同诈骗"))[1] == ("合同诈骗", False)


def test_gold_named_apart_from_a_longer_non_candidate_charge() -> None:
    assert both("不是合同诈骗，而是诈骗", "诈骗") == (("诈骗", True), ("诈骗", True))


def test_paper_walk_stops_at_the_gold() -> None:
    # Deleting the gold itself would leave nothing to find.
    assert both("合同诈骗", "合同诈骗", candidates=("合同诈骗", "盗窃")) == (
        ("合同诈骗", True),
        ("合同诈骗", True),
    )


def test_paper_deletion_can_join_the_gold_and_ties_go_in_list_order() -> None:
    assert both("盗抢劫窃", "盗窃", charges=("抢劫", "盗窃")) == (("盗窃", True), ("抢劫", False))
    assert both("盗抢劫窃", "盗窃", charges=("盗窃", "抢劫")) == (("抢劫", False), ("抢劫", False))


def test_without_a_charge_list_candidates_and_gold_stand_in() -> None:
    # 合同诈骗 is then unknown, so paper mode cannot delete it (documented in the law module).
    assert both("合同诈骗", "诈骗", charges=()) == (("诈骗", True), ("诈骗", True))
    assert both("盗窃、抢劫", "盗窃", charges=(), candidates=()) == (("盗窃", True), ("盗窃", True))


def test_robust_without_candidates_uses_every_charge() -> None:
    assert both("盗窃、故意伤害", "盗窃", candidates=()) == (("盗窃", True), (None, False))


def cf(reply: str, gold: str = "盗窃") -> tuple[tuple[str | None, bool], ...]:
    return both(reply, gold, task="law-cf")


def test_law_cf_json_field_is_right_in_both_modes() -> None:
    reply = json.dumps({"rule": 264, "指控": "盗窃"}, ensure_ascii=False)
    assert cf(reply) == (("盗窃", True), ("盗窃", True))


def test_law_cf_paper_wants_an_exact_value_robust_reads_the_charge_in_it() -> None:
    assert cf('{"rule": 264, "指控": "盗窃罪"}') == (("盗窃罪", False), ("盗窃", True))


def test_law_cf_paper_falls_back_to_a_substring_when_the_reply_is_not_only_json() -> None:
    assert cf('{"rule": 1, "指控": "抢劫"} 依照规则，不是盗窃') == (("盗窃", True), ("抢劫", False))
    fenced = '```json\n{"rule": 1, "指控": "抢劫"}\n```'
    assert cf(fenced) == (("抢劫", False), ("抢劫", False))


@pytest.mark.parametrize("reply", ['["盗窃"]', '"盗窃"', '{"charge": "盗窃"}'])
def test_law_cf_paper_falls_back_on_json_without_the_key(reply: str) -> None:
    assert cf(reply) == (("盗窃", True), ("盗窃", True))


def test_law_cf_non_string_value_is_wrong_and_does_not_raise() -> None:
    assert cf('{"指控": 3}') == (("3", False), (None, False))


OUTSIDE = ("盗窃", "诈骗", "故意伤害")
"""Candidates without 抢劫: a reply that names 抢劫 chooses a charge outside the list."""


@pytest.mark.parametrize(
    "reply",
    [
        "不是盗窃罪，而是抢劫罪",
        "被告人的行为不构成盗窃罪，应认定为抢劫罪。",
        "构成抢劫罪而非盗窃罪",
        "盗窃罪不成立，构成抢劫罪",
        "It is not 盗窃 but 抢劫.",
    ],
)
def test_robust_never_credits_a_denied_candidate(reply: str) -> None:
    assert both(reply, "盗窃", candidates=OUTSIDE) == (("盗窃", True), (None, False))
    # Unknown to every list (no charge list given): still not the denied one.
    assert both(reply, "盗窃", charges=(), candidates=OUTSIDE)[1] == (None, False)
    # With the affirmed charge among the candidates, it is the answer.
    assert both(reply, "抢劫") == (("抢劫", True), ("抢劫", True))


def test_robust_denial_in_english_with_charges_outside_every_list() -> None:
    reply = "The defendant is not guilty of theft but of robbery."
    candidates = ("theft", "fraud", "assault")
    assert both(reply, "theft", charges=(), candidates=candidates) == (
        ("theft", True),
        (None, False),
    )


@pytest.mark.parametrize(
    "reply",
    [
        "被告人不是初犯，构成盗窃罪",
        "是不是盗窃罪？是的，构成盗窃罪",
        "不应认定为诈骗罪，应认定为盗窃罪",
        "不构成诈骗罪和故意伤害罪，构成盗窃罪",
        "证据确实充分，排除合理怀疑认定盗窃罪",
    ],
)
def test_what_is_not_a_denial_of_the_gold(reply: str) -> None:
    assert both(reply, "盗窃", candidates=OUTSIDE) == (("盗窃", True), ("盗窃", True))


def test_law_cf_denial_outside_the_json() -> None:
    assert cf("不是盗窃，而是抢劫") == (("盗窃", True), ("抢劫", False))
