"""Robust reading of a multiple-choice letter (a-d), shared by DEER and TheoremQA.

A lowercase `a` followed by a word is the English article, not option a ("the answer is a
plant"), so it is never read as a letter; every other a-d letter standing alone is.
"""

import re
from collections.abc import Callable

from rulebench.core.rules import Sample
from rulebench.inferential.definition import Judges, sample_judges
from rulebench.inferential.extraction import Judgement, Step, run_steps

_LETTER = r"[(\[]?(?P<letter>[A-Db-d]|a(?!\s+[a-z]))(?![A-Za-z0-9])"
_MARKER = re.compile(
    r"(?i:\banswer\b)(?:\s*(?i:is|would\s+be|:|：|=|-))*"
    r"[\s*_`\"'“”]*(?:(?i:option|choice)\s*)?" + _LETTER
)
_OPTION_TOKEN = re.compile(
    r"(?<![A-Za-z0-9.])(?:\((?P<p>[A-Da-d])\)|(?P<d>[A-Da-d])[.)])(?![A-Za-z0-9])"
)
_ANSWER_WORD = re.compile(r"\banswer\b", re.IGNORECASE)
_BARE = re.compile(r"[\s*_`\"'“”(\[]*(?P<letter>[A-Da-d])[\s*_`\"'“”.)\]:!?]*")


def first_letter_after_answer_marker(reply: str) -> str | None:
    """Fix: `Answer: ([abcd])` needs that exact case, a space and no markup or brackets.

    Reads `answer: B`, `**Answer:** (c)`, `The answer is d` and `Answer:b`, trailing notes
    allowed; the first such answer counts, as the paper's first regex match does.
    """
    found = _MARKER.search(reply)
    return found.group("letter").lower() if found else None


def last_letter_after_answer_marker(reply: str) -> str | None:
    """Fix: paper DEER needs an uppercase `B.` or `B)` after the last lowercase ` answer `.

    Reads `Answer: B`, `the answer is b`, `answer: (b)`, `**Answer**: C`; the last such answer
    counts, as the paper keeps only the text after the last ` answer `.
    """
    found = list(_MARKER.finditer(reply))
    return found[-1].group("letter").lower() if found else None


def option_letter_token(reply: str) -> str | None:
    """Fix: paper DEER reads only uppercase `A.`..`D)` and finds them inside words (`U.S.A.`).

    The first option-shaped letter (`B.`, `b)`, `(b)`, any case, not glued to other letters or
    dots) after the last word "answer" (or anywhere, if none follows it) is the answer.
    """
    answers = list(_ANSWER_WORD.finditer(reply))
    tail = reply[answers[-1].end() :] if answers else reply
    for text in (tail, reply):
        found = _OPTION_TOKEN.search(text)
        if found:
            return (found.group("p") or found.group("d")).lower()
    return None


def bare_letter_reply(reply: str) -> str | None:
    """Fix: a reply that is only a letter (`b`, `B`, `(b)`, `**C.**`) has no marker to match."""
    found = _BARE.fullmatch(reply)
    return found.group("letter").lower() if found else None


def letter_judges(
    paper_answer: Callable[[str], str | None], robust_steps: tuple[Step, ...]
) -> Judges:
    """Both modes' judges of a lettered-choice task, from its paper reading and robust steps.

    Paper mode compares the letter with the stripped gold as it is (the paper's check, case
    and all); robust mode, whose steps give lowercase letters, with the gold lowercased.
    """

    def judge_paper(reply: str, sample: Sample) -> Judgement:
        answer = paper_answer(reply)
        return Judgement(answer=answer, correct=answer == sample.gold.strip())

    def judge_robust(reply: str, sample: Sample) -> Judgement:
        answer = run_steps(robust_steps, reply)
        return Judgement(answer=answer, correct=answer == sample.gold.strip().lower())

    return sample_judges(judge_paper, judge_robust, tuple(step.__name__ for step in robust_steps))
