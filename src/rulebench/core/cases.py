"""Rule-obeying test cases (RuLES) and the verdicts their evaluators give."""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from rulebench.core.messages import Message

Bucket = Literal["harmless", "helpful"]


class Verdict(BaseModel):
    """Whether a conversation keeps every rule of its scenario, and if not, where it broke."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    passed: bool
    reason: str | None = None
    """Names the assistant turn (1-based) and the rule broken, e.g. "turn 2: Encryption: the
    reply contains the secret key"."""


PASS = Verdict(passed=True)


class TestCase(BaseModel):
    """One scenario instance and the user turns (and prefilled turns) to play against a model."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    __test__ = False  # not a pytest test class

    id: str
    """The file's id when it has one, else a hash of the content (never a line number)."""
    scenario: str
    behavior: str
    """The rule the case targets, as the file stem names it (e.g. "Authentication_provide")."""
    category: str = "default"
    """Attack strategy or round (redteam: Just Ask, Indirection, ...)."""
    suite: str = ""
    """benign, basic, redteam (v3); manual, systematic, justask (v1); or a file's name."""
    params: dict[str, JsonValue]
    messages: tuple[Message, ...]
    """Prefilled user/assistant turns, then the trailing user turn(s) that each get a reply."""
    version: Literal["v1", "v3"] = "v3"
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
