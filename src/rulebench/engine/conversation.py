"""Playing a multi-turn item: every trailing user turn gets its own reply, checked as it comes."""

from collections.abc import Callable, Sequence

from rulebench.core.messages import Message, reply_turn
from rulebench.engine.task import Session

Check = Callable[[list[Message]], str | None]
"""Looks at the conversation after a reply; returns why a rule broke, or None if none did."""


def split_trailing_user_turns(messages: Sequence[Message]) -> tuple[list[Message], list[Message]]:
    """Split into the prefilled part and the user turns after the last assistant message."""
    last_assistant = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=-1)
    prefill, tail = list(messages[: last_assistant + 1]), list(messages[last_assistant + 1 :])
    first_user = next((i for i, m in enumerate(tail) if m.role == "user"), len(tail))
    return prefill + tail[:first_user], tail[first_user:]


async def play_conversation(
    session: Session, messages: Sequence[Message], check: Check | None = None
) -> tuple[list[Message], str | None]:
    """Reply to each trailing user turn in order; stop at the first broken rule.

    Returns the conversation so far and the violation (None when every reply passed).
    """
    conversation, user_turns = split_trailing_user_turns(messages)
    for turn in user_turns:
        conversation.append(turn)
        completion = await session.generate(conversation)
        conversation.append(reply_turn(completion))
        violation = check(conversation) if check else None
        if violation is not None:
            return conversation, violation
    return conversation, None
