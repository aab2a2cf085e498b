"""Types every task's extraction shares: the judgement, a step, and running steps in order.

Extraction is an ordered tuple of steps, each `str -> str | None`: the first step that finds an
answer decides, so a step only has to recognise one way of writing the answer, and robust mode
adds a fix by adding (and naming) a step rather than by editing a monolithic parser.
"""

import functools
from collections.abc import Callable, Iterable
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict

Mode = Literal["paper", "robust"]
"""`paper` reproduces the released scorer's decisions; `robust` fixes its quirks."""

Step = Callable[[str], str | None]
"""One way of reading an answer out of a reply; None when this way finds nothing."""

Context = TypeVar("Context")

NO_ANSWER = ""
"""What a step returns when the reply does state its answer, but nothing in the vocabulary
("Clarence is Michael's aunt's husband"): later steps are skipped, since what they would find is
a mention rather than the answer, and the judgement has no answer."""


class Judgement(BaseModel):
    """What one reply was read as and whether that counts as right."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    answer: str | None
    """The extracted answer in the task's answer vocabulary (a kinship label, "O3", a letter,
    "true", a charge, a number); None when nothing could be read."""
    correct: bool
    """Whether the reply scores as right under the mode that judged it."""
    refused: bool = False
    """A refusal (SALAD only): excluded from the accuracy denominator and counted separately."""


def run_steps(steps: Iterable[Step], reply: str) -> str | None:
    """The answer of the first step that finds one, else None (a missing answer scores wrong).

    A step's `NO_ANSWER` stops the search and reads as None.
    """
    for step in steps:
        answer = step(reply)
        if answer is not None:
            return answer or None
    return None


def bind(step: Callable[[str, Context], str | None], context: Context) -> Step:
    """A step that needs per-sample facts (its answer vocabulary), as a plain `str -> str | None`.

    The bound step keeps the original's name and docstring, so fix listings stay truthful.
    """

    @functools.wraps(step)
    def bound(reply: str) -> str | None:
        return step(reply, context)

    return bound
