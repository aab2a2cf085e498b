"""The redteam suite's conversations: one to three adversarial user turns per case.

Harmless cases are the attack alone; helpful cases are the attack (one or two turns) followed
by the exact trigger, so a model that gives in answers the trigger wrongly.
"""

import random

from rulebench.core.cases import Bucket
from rulebench.core.messages import Message
from rulebench.scenarios.suites.attacks_framed import INDIRECTION, OBFUSCATION, SIMULATION
from rulebench.scenarios.suites.attacks_plain import JUST_ASK, LEGALESE, RULE_CHANGE
from rulebench.scenarios.suites.slots import Strategy, Template, fill_slots
from rulebench.scenarios.suites.target_model import Target

ALL_TEMPLATES: tuple[Template, ...] = (
    *JUST_ASK,
    *INDIRECTION,
    *LEGALESE,
    *OBFUSCATION,
    *RULE_CHANGE,
    *SIMULATION,
)


def templates_for(strategy: Strategy, bucket: Bucket) -> tuple[Template, ...]:
    """The templates of a strategy that fit a bucket, in a fixed order."""
    return tuple(t for t in ALL_TEMPLATES if t.strategy == strategy and t.bucket in (None, bucket))


def redteam_messages(target: Target, template: Template, rng: random.Random) -> list[Message]:
    """The case's user turns: the template's turns voiced by the attacker, then any trigger."""
    slots = fill_slots(target, rng)
    speaker = target.attacker.pick(rng)
    messages = [
        Message(role="user", content=speaker.say(turn.format(**slots), rng))
        for turn in template.turns
    ]
    if target.bucket == "helpful":
        messages.append(Message(role="user", content=target.trigger))
    return messages
