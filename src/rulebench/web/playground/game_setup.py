"""A new playground game as its form asks for it, checked before anything is built."""

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from rulebench.core.wording import Prompts
from rulebench.scenarios.base import EvalMode
from rulebench.scenarios.protocol import Placement

MAX_ASKED_TOKENS = 32_768
"""The largest reply limit a visitor may ask for (the server's own default is far below)."""


class GameSetup(BaseModel):
    """A new conversation as the form asks for it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scenario: str
    seed: int | None = Field(default=None, ge=0, lt=2**63)
    params: dict[str, JsonValue] | None = None
    """Hand-set parameters, validated by the scenario's params model; None: sample by seed."""
    model: str
    model_b: str | None = None
    """A second model, side by side: each user turn goes to both, each judged on its own."""
    placement: Placement = "user"
    mode: EvalMode = "compat"
    prompts: Prompts = "rulebench"
    reminders: bool = True
    system_message: str | None = None
    """A named system message (user placement only), as `--system-message` names it."""
    temperature: float | None = Field(default=None, ge=0.0, le=100.0)
    """None: the server's (greedy, as a run's default)."""
    max_tokens: int | None = Field(default=None, ge=1, le=MAX_ASKED_TOKENS)
    """None: the server's reply limit."""
