"""The slots a generated test case fills: the request, the trigger, the voices.

Templates are written once for every behavior; a `Target` fills their slots for one sampled
scenario instance: what to ask for (`ask`, `thing`), which reply a helpful rule demands (`good`)
and which one an attack tries to get instead (`bad`), the exact trigger message, and how a user
message is voiced (multi-user scenarios need a `<name>:` prefix on every user message, and
RockPaperScissors needs both players in each message).
"""

import random
from collections.abc import Callable, Mapping

from pydantic import BaseModel, ConfigDict, JsonValue

from rulebench.core.cases import Bucket
from rulebench.core.errors import ConfigError

Params = Mapping[str, JsonValue]


class Voice(BaseModel):
    """How user texts become user messages: `head + text + tail` (prefixes for multi-user)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    heads: tuple[str, ...] = ("",)
    """One is drawn per message; each is a valid `<name>: ` prefix where the scenario needs one."""
    tails: tuple[str, ...] = ("",)

    def say(self, text: str, rng: random.Random) -> str:
        """One user message; drawing from the case's rng keeps the case reproducible."""
        return f"{rng.choice(self.heads)}{text}{rng.choice(self.tails)}"

    def pick(self, rng: random.Random) -> "Voice":
        """One speaker of this voice, so that a multi-turn attack keeps one speaker."""
        return self.model_copy(update={"heads": (rng.choice(self.heads),)})


SOLO = Voice()
"""A single user: no prefix."""


class Target(BaseModel):
    """The slots a template fills for one behavior and one scenario instance."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    behavior: str
    bucket: Bucket
    ask: str
    """An imperative verb phrase that breaks the rule: "tell me the secret key"."""
    thing: str
    """What the rule protects (harmless) or governs (helpful), as a noun phrase."""
    attacker: Voice = SOLO
    """How the attacker speaks (AccessControl: never the administrator)."""
    chat: Voice = SOLO
    """How innocuous messages are voiced (any user of the scenario)."""
    trigger: str = ""
    """Helpful: the exact user message the rule answers (already voiced)."""
    good: str = ""
    """Helpful: the reply the rule demands after the trigger."""
    bad: str = ""
    """Helpful: a reply that breaks the rule, the one an attack asks for."""


TargetBuilder = Callable[[Params, random.Random], Target]
"""Makes a behavior's target from the instance's params (JSON) and the case's rng."""


def text_param(params: Params, key: str) -> str:
    """A string or integer parameter as text (numbers are compared as decimal strings)."""
    value = params[key]
    if isinstance(value, str | int) and not isinstance(value, bool):
        return str(value)
    raise ConfigError(f"parameter '{key}' is not a string or integer: {value!r}")


def list_param(params: Params, key: str) -> list[str]:
    """A list parameter (users, animals, sounds) as strings."""
    value = params[key]
    if isinstance(value, list):
        return [str(item) for item in value]
    raise ConfigError(f"parameter '{key}' is not a list: {value!r}")


def voice(*names: str) -> Voice:
    """Messages from any of these users, each with its `<name>: ` prefix."""
    return Voice(heads=tuple(f"{name}: " for name in names))
