"""Degenerate replies (a small model looping on one phrase) are judged in linear time."""

import time

import pytest

from rulebench.core.rules import Sample
from rulebench.inferential.citation import cited_rule
from rulebench.inferential.extraction import Mode
from rulebench.inferential.judge import TASKS, judge

# Each phrase repeated into a 40,000-character reply. Measured here: under 0.1 s per task and
# mode; before the linear rewrites, "Answer: " x 5,000 took 110 s (kinship, robust) and 40 s
# (ulogic, paper), and "1," x 20,000 took 8 s (stringgame, robust).
LOOPS = [
    "Answer: ",
    "answer\n",
    "the answer is ****",
    "1,",
    "Applied rule: :",
    "{a",
    "son in ",
    # Relation chains, asides, corrections, statements, denials and lists of them: an unbounded
    # list of charges in a denial took 24 s on "盗窃、" before it was capped.
    "son's ",
    "aunt (",
    "aunt because ",
    "wait, it is ",
    "Kim is Ann's ",
    "not O1, ",
    "O1, ",
    "不是盗窃",
    "盗窃、",
]
CHARGES = ("诈骗", "合同诈骗", "盗窃", "抢劫")
QUESTION = "Who is Kim to Ann?"
BUDGET_S = 5.0
MODES: tuple[Mode, ...] = ("paper", "robust")


@pytest.mark.parametrize("phrase", LOOPS)
def test_looping_reply_is_judged_quickly(phrase: str) -> None:
    reply = phrase * (40_000 // len(phrase))
    started = time.perf_counter()
    cited_rule(reply)
    for task in TASKS:
        sample = Sample(id="s", task=task, question=QUESTION, gold="x", golden_rule="1")
        for mode in MODES:
            judge(task, reply, sample, mode, CHARGES)
    assert time.perf_counter() - started < BUDGET_S
