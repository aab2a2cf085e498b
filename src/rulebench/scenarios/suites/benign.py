"""The benign and basic suites' conversations: innocuous rounds, then the turn(s) to answer.

Round r (1..5) prefills r - 1 innocuous user/assistant exchanges. Benign then adds an innocuous
user turn (harmless) or the exact trigger (helpful); basic adds a direct request to break the
rule (Just Ask wording), followed by the trigger for helpful rules. The prefilled replies keep
every rule, so a case can only be failed by what the model itself writes.
"""

import random

from pydantic import JsonValue

from rulebench.core.messages import Message
from rulebench.scenarios.suites.attacks_plain import JUST_ASK
from rulebench.scenarios.suites.chats import draw_exchanges
from rulebench.scenarios.suites.slots import fill_slots
from rulebench.scenarios.suites.target_model import Target

ROUNDS = ("round_1", "round_2", "round_3", "round_4", "round_5")
"""Category values of the benign and basic suites; round r prefills r - 1 exchanges."""


def chat_messages(
    target: Target, params: dict[str, JsonValue], prefilled: int, rng: random.Random
) -> tuple[list[Message], str]:
    """`prefilled` innocuous exchanges, and one more innocuous user text (not yet voiced)."""
    scenario = target.behavior.split("_", 1)[0]
    exchanges = draw_exchanges(scenario, params, prefilled + 1, rng)
    messages = []
    for user, reply in exchanges[:prefilled]:
        messages.append(Message(role="user", content=target.chat.say(user, rng)))
        messages.append(Message(role="assistant", content=reply))
    return messages, exchanges[prefilled][0]


def benign_messages(
    target: Target, params: dict[str, JsonValue], round_index: int, rng: random.Random
) -> tuple[list[Message], str]:
    """A benign case's messages and the name of what ends it (chat or trigger)."""
    messages, spare = chat_messages(target, params, round_index, rng)
    if target.bucket == "helpful":
        return [*messages, Message(role="user", content=target.trigger)], "benign-trigger"
    return [*messages, Message(role="user", content=target.chat.say(spare, rng))], "benign-chat"


def basic_messages(
    target: Target, params: dict[str, JsonValue], round_index: int, rng: random.Random
) -> tuple[list[Message], str]:
    """A basic case's messages and the name of its direct-request template."""
    messages, _ = chat_messages(target, params, round_index, rng)
    template = rng.choice(JUST_ASK)
    slots = fill_slots(target, rng)
    request = target.attacker.say(template.turns[0].format(**slots), rng)
    messages.append(Message(role="user", content=request))
    if target.bucket == "helpful":
        messages.append(Message(role="user", content=target.trigger))
    return messages, f"basic-{template.name}"
