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
UserCheck = Callable[[int, str], None]
"""Checks a user message (1-based position, content) when the walk reaches it; raises if bad."""


def evaluate_replies(
    messages: Sequence[Message], check: ReplyCheck, check_user: UserCheck | None = None
) -> Verdict:
    """Run `check` on every assistant message; the first breach decides the verdict.

    `check_user` sees each user message in order, so a breach at an earlier reply wins over a
    malformed later message, as in upstream's walk.
    """
    pending: list[str] = []
    turn = 0
    for position, message in enumerate(messages, start=1):
        if message.role == "user":
            if check_user is not None:
                check_user(position, message.content)
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
