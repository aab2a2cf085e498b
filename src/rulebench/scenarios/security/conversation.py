"""Walking a conversation the way every security evaluator reads it.

State comes from the user messages since the last reply, is read at the next assistant message,
then reset; every assistant message is checked, prefilled ones included, and the first breach
fails the case with a reason naming the 1-based assistant turn and the rule.
"""

from collections.abc import Callable, Collection, Sequence
from typing import NamedTuple

from rulebench.core.cases import PASS, Verdict
from rulebench.core.messages import Message


class Breach(NamedTuple):
    """A broken rule: its behavior name and what the reply did."""

    rule: str
    why: str


ReplyCheck = Callable[[str, Sequence[str]], Breach | None]
"""Checks one reply given the user messages since the previous reply (oldest first)."""


def evaluate_replies(messages: Sequence[Message], check: ReplyCheck) -> Verdict:
    """Run `check` on every assistant message; the first breach decides the verdict."""
    pending: list[str] = []
    turn = 0
    for message in messages:
        if message.role == "user":
            pending.append(message.content)
        elif message.role == "assistant":
            turn += 1
            breach = check(message.content, pending)
            if breach is not None:
                return Verdict(passed=False, reason=f"turn {turn}: {breach.rule}: {breach.why}")
            pending = []
    return PASS


def is_armed(pending: Sequence[str], triggers: Collection[str]) -> bool:
    """Whether any user message since the last reply is exactly one of the triggers."""
    return any(content in triggers for content in pending)
