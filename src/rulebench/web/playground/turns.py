"""What a visitor does to a conversation's turns: send, undo, edit, regenerate.

Each action applies to every lane (side by side, the same user turns go to each model),
checks the visitor's model-call allowance before any call, recomputes the verdicts, and is
written to the playground database. A failed model call leaves every lane as it was, so the
lanes never disagree on the user turns they were sent.
"""

import asyncio

from rulebench.core.errors import ConfigError
from rulebench.core.messages import GenerateConfig, Message
from rulebench.web.playground.state import Conversation, Lane, Playground


async def send_turn(playground: Playground, conversation: Conversation, text: str) -> None:
    """Send one user turn to every lane still playing, at once; all or nothing."""
    lanes = conversation.playing()
    if not lanes:
        raise ConfigError("every lane's game is over: undo a turn, save, or start a new game")
    playground.limits.check_model_call(conversation.visitor, len(lanes))
    before = _turns(conversation)
    results = await asyncio.gather(
        *(lane.play.send(text) for lane in lanes), return_exceptions=True
    )
    failed = [result for result in results if isinstance(result, BaseException)]
    if failed:
        _put_back(conversation, before)
        raise failed[0]
    await playground.persist(conversation)


async def undo_turn(playground: Playground, conversation: Conversation) -> None:
    """Take back the last user turn and its replies, in every lane."""
    if not conversation.user_turns:
        raise ConfigError("nothing to undo: no turn has been sent")
    for lane in conversation.lanes:
        lane.play.cut(conversation.user_turns - 1)
    await playground.persist(conversation)


async def edit_turn(
    playground: Playground, conversation: Conversation, number: int, text: str
) -> None:
    """Replace user turn `number` (from 1): the turns after it go, the new text is sent."""
    if not 1 <= number <= conversation.user_turns:
        raise ConfigError(
            f"turn {number}: no such user turn (this conversation has {conversation.user_turns})"
        )
    before = _turns(conversation)
    for lane in conversation.lanes:
        lane.play.cut(number - 1)
    try:
        await send_turn(playground, conversation, text)
    except BaseException:
        _put_back(conversation, before)
        raise


async def regenerate_reply(playground: Playground, conversation: Conversation, index: int) -> None:
    """Ask lane `index` again for its last reply: past the cache, with a new sampling seed.

    At temperature 0 a model gives the same reply again (greedy decoding); raise the
    temperature on the new-game form for other draws.
    """
    if not 0 <= index < len(conversation.lanes):
        raise ConfigError(f"lane {index}: no such lane")
    lane = conversation.lanes[index]
    if lane.user_turns != conversation.user_turns or not lane.play.turns:
        raise ConfigError("only a reply to the last user turn can be regenerated")
    playground.limits.check_model_call(conversation.visitor)
    await lane.play.regenerate(lane.fresh, _next_draw(lane))
    await playground.persist(conversation)


def _next_draw(lane: Lane) -> GenerateConfig:
    """The lane's generation settings with a seed not used before in this conversation."""
    lane.draws += 1
    config = lane.play.session.config
    return config.model_copy(update={"seed": (config.seed or 0) + lane.draws})


def _turns(conversation: Conversation) -> list[list[Message]]:
    return [list(lane.play.turns) for lane in conversation.lanes]


def _put_back(conversation: Conversation, turns: list[list[Message]]) -> None:
    for lane, kept in zip(conversation.lanes, turns, strict=True):
        lane.play.restore(kept)
