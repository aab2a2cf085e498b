"""Messages, generation parameters and completions: what goes to a model and what comes back."""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant"]


class Message(BaseModel):
    """One turn of a conversation; a conversation is a sequence of these."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Role
    content: str


def append_suffix(content: str, suffix: str) -> str:
    """A user message with an adversarial suffix appended, as GCG optimises it (one space)."""
    return f"{content} {suffix}"


class GenerateConfig(BaseModel):
    """Every parameter that shapes a reply: all of it keys the cache and is stored with runs.

    Numbers are finite and bounded: `temperature=inf` would be sent as the JSON-invalid
    `Infinity`, and a backend given an absurd value fails in ways that name nothing.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    max_tokens: int = Field(default=256, ge=1, le=10_000_000)
    temperature: float = Field(default=0.0, ge=0.0, le=100.0)
    """Servers accept 0-2 (OpenAI) or more (vLLM); far above, sampling is near-uniform noise."""
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    seed: int | None = Field(default=0, ge=-(2**63), le=2**64 - 1)
    """Sampling seed; irrelevant at temperature 0 but kept so sampled runs reproduce. Bounded
    by what torch.manual_seed takes (64 bits), the strictest backend."""
    stop: tuple[str, ...] = ()


class Usage(BaseModel):
    """Token counts of one or more model calls."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    """The part of `completion_tokens` spent thinking, as the API reports it (OpenAI's
    `completion_tokens_details.reasoning_tokens`); already counted in `completion_tokens`."""

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
        )


class Completion(BaseModel):
    """A model's reply to one request."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    """The answer: what a user sees and what scoring reads; never includes the thinking."""
    reasoning: str = ""
    """The model's thinking, split from the answer (API reasoning fields or think tags); kept
    and stored, never scored by default."""
    is_reasoning_unfinished: bool = False
    """True when the thinking never closed (the reply limit cut it): `text` is then empty and
    the reply must be counted as truncated, never as a wrong answer or as rule-following."""
    usage: Usage = Usage()
    latency_s: float = 0.0
    finish_reason: str | None = None
    """Why generation stopped ("stop", "length", ...), as the backend reports it."""
    system_merged: bool = False
    """True when the backend had no system role and merged the system message into the first
    user turn; recorded with the result so the fallback is never silent."""
    cached: bool = False
    """True when the reply came from the response cache instead of the model."""
    warnings: tuple[str, ...] = ()
    """What the backend had to change in the reply to keep it (lone surrogates replaced, text
    cut at the reply size cap); stored with the item's result."""
    endpoint: str | None = None
    """Which server answered (its base URL, credentials removed) when a model spreads requests
    over several; stored with the item's result."""


def merge_system_message(messages: list[Message]) -> list[Message]:
    """Fold leading system messages into the first user turn, for models without a system role.

    The system text comes first, separated by a blank line, which is how chat templates without a
    system role are usually prompted.
    """
    system = [m.content for m in messages if m.role == "system" and m.content]
    rest = [m for m in messages if m.role != "system"]
    if not system:
        return rest
    prefix = "\n\n".join(system)
    for index, message in enumerate(rest):
        if message.role == "user":
            merged = Message(role="user", content=f"{prefix}\n\n{message.content}")
            return [*rest[:index], merged, *rest[index + 1 :]]
    return [Message(role="user", content=prefix), *rest]
