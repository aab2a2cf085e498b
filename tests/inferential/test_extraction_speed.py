"""Degenerate replies (a small model looping on one phrase) are judged in linear time.

The check is how judging time GROWS with the reply (ten times longer may take about ten times
as long, never a hundred), not a wall-clock budget: it holds on any machine. The absolute
figures are printed by `bench/bench_extraction.py`.
"""

import time

import pytest

from rulebench.core.rules import Sample
from rulebench.inferential.citation import cited_rule
from rulebench.inferential.extraction import Mode
from rulebench.inferential.judge import TASKS, judge

# Each phrase repeated into a long reply. Before the linear rewrites "Answer: " looping made
# kinship (robust) and ulogic (paper) quadratic, and "1," made stringgame (robust) quadratic.
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
MODES: tuple[Mode, ...] = ("paper", "robust")
SHORT, LONG = 4_000, 40_000
"""Reply lengths compared: ten times longer."""
GROWTH_LIMIT = 40.0
"""Linear work grows about 10x from SHORT to LONG, quadratic about 100x; timing noise on a
busy machine stays well inside the margin between them."""


def judge_everything(reply: str) -> None:
    """Cite and judge `reply` as every task in both modes (all the work a result gets)."""
    cited_rule(reply)
    for task in TASKS:
        sample = Sample(id="s", task=task, question=QUESTION, gold="x", golden_rule="1")
        for mode in MODES:
            judge(task, reply, sample, mode, CHARGES)


def best_seconds(reply: str, tries: int = 3) -> float:
    """The fastest of a few timings (the least disturbed by other processes)."""
    timings = []
    for _ in range(tries):
        started = time.perf_counter()
        judge_everything(reply)
        timings.append(time.perf_counter() - started)
    return min(timings)


def looping_reply(phrase: str, length: int) -> str:
    """`phrase` repeated up to `length` characters."""
    return phrase * (length // len(phrase))


@pytest.mark.parametrize("phrase", LOOPS)
def test_judging_time_grows_linearly_with_a_looping_reply(phrase: str) -> None:
    short = best_seconds(looping_reply(phrase, SHORT))
    long = best_seconds(looping_reply(phrase, LONG))
    # A floor keeps a sub-millisecond short timing from inflating the ratio.
    assert long / max(short, 1e-3) < GROWTH_LIMIT
