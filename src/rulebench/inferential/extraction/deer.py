"""Reading a DEER option letter (a-d) out of a reply."""

from rulebench.core.rules import Sample
from rulebench.inferential.definition import sample_judges
from rulebench.inferential.extraction.base import Judgement, run_steps
from rulebench.inferential.extraction.letters import (
    bare_letter_reply,
    last_letter_after_answer_marker,
    option_letter_token,
)

PAPER_OPTIONS: tuple[str, ...] = ("A.", "B.", "C.", "D.", "A)", "B)", "C)", "D)")
"""What the released scorer looks for inside a token, in this order, uppercase only."""

_PAPER_ANSWER = " answer "


def paper_answer(reply: str) -> str | None:
    """The released reading: the first token after the last ` answer ` holding `A.`..`D)`.

    Quirks kept: ` answer ` is lowercase with a space on each side (`Answer: B` is missed, and the
    whole reply is searched then); tokens split on single spaces; only uppercase `B.`/`B)` count,
    anywhere inside a token (`U.S.A.` reads as a), so `b`, `(b)` and a bare `B` are missed.
    """
    start = reply.rfind(_PAPER_ANSWER)
    tail = reply[start + len(_PAPER_ANSWER) :] if start >= 0 else reply
    for token in tail.split(" "):
        for option in PAPER_OPTIONS:
            if option in token:
                return option[0].lower()
    return None


ROBUST_STEPS = (bare_letter_reply, last_letter_after_answer_marker, option_letter_token)
ROBUST_FIXES: tuple[str, ...] = tuple(step.__name__ for step in ROBUST_STEPS)


def judge_paper(reply: str, sample: Sample) -> Judgement:
    """Paper mode: correct when the letter equals the stripped gold."""
    answer = paper_answer(reply)
    return Judgement(answer=answer, correct=answer == sample.gold.strip())


def judge_robust(reply: str, sample: Sample) -> Judgement:
    """Robust mode: a bare letter, the last marked answer, then the first option-shaped letter."""
    answer = run_steps(ROBUST_STEPS, reply)
    return Judgement(answer=answer, correct=answer == sample.gold.strip().lower())


JUDGES = sample_judges(judge_paper, judge_robust, ROBUST_FIXES)
"""How the task's replies are judged, for its TaskDefinition."""
