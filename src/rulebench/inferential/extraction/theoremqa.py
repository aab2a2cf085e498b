"""Reading a TheoremQA choice letter (a-d) out of a reply."""

import re

from rulebench.core.rules import Sample
from rulebench.inferential.definition import sample_judges
from rulebench.inferential.extraction.base import Judgement, run_steps
from rulebench.inferential.extraction.letters import (
    bare_letter_reply,
    first_letter_after_answer_marker,
)

_PAPER = re.compile(r"Answer: ([abcd])")


def paper_answer(reply: str) -> str | None:
    """The released reading: the first match of `Answer: ([abcd])`.

    Quirks kept: case-sensitive (`answer: b` and `Answer: B` are missed), exactly one space, no
    markup (`**Answer:** b` is missed), and the letter may start a word (`Answer: because`
    reads as b).
    """
    found = _PAPER.search(reply)
    return found.group(1) if found else None


ROBUST_STEPS = (first_letter_after_answer_marker, bare_letter_reply)
ROBUST_FIXES: tuple[str, ...] = tuple(step.__name__ for step in ROBUST_STEPS)


def judge_paper(reply: str, sample: Sample) -> Judgement:
    """Paper mode: correct when the letter equals the stripped gold."""
    answer = paper_answer(reply)
    return Judgement(answer=answer, correct=answer == sample.gold.strip())


def judge_robust(reply: str, sample: Sample) -> Judgement:
    """Robust mode: the first marked answer in any case and markup, else a bare-letter reply."""
    answer = run_steps(ROBUST_STEPS, reply)
    return Judgement(answer=answer, correct=answer == sample.gold.strip().lower())


JUDGES = sample_judges(judge_paper, judge_robust, ROBUST_FIXES)
"""How the task's replies are judged, for its TaskDefinition."""
