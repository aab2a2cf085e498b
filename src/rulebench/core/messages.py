"""Messages, generation parameters and completions: what goes to a model and what comes back."""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

Role = Literal["system", "user", "assistant"]
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high"]
"""How hard a reasoning model thinks, as OpenAI's `reasoning_effort` and vLLM/SGLang take it."""


class Message(BaseModel):
    """One turn of a conversation; a conversation is a sequence of these."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Role
    content: str
    reasoning: str | None = Field(default=None, exclude=True)
    """An assistant turn's thinking, kept for the store and the explorer. Never sent back to
    a model (backends send `content`, as the model makers recommend), never in a dump, so
    case ids, cache keys and written files are what they were without it."""


def append_suffix(content: str, suffix: str) -> str:
    """A user message with an adversarial suffix appended, as GCG optimises it (one space)."""
    return f"{content} {suffix}"


class ReasoningTags(BaseModel):
    """The tags that enclose thinking in a reply's content; Magistral and others use their own."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    start: str = Field(default="<think>", min_length=1)
    end: str = Field(default="</think>", min_length=1)

    @model_validator(mode="after")
    def _distinct(self) -> "ReasoningTags":
        if self.start == self.end:
            raise ValueError(f"reasoning tags: start and end are both {self.start!r}")
        return self


DEFAULT_TAGS = ReasoningTags()


class ReasoningOptions(BaseModel):
    """How a reasoning model is asked to think, and how its thinking is split from its answer.

    Every field changes the reply or what is scored, so all of them key the cache and are
    stored with the run (inside `GenerateConfig`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    thinking: bool | None = None
    """The thinking switch, sent as the chat template's `enable_thinking` (Qwen3, DeepSeek,
    Granite...): to servers as `chat_template_kwargs`, to local chat templates as a template
    variable. None sends nothing: the model thinks or not as its template does by default."""
    effort: ReasoningEffort | None = None
    """Sent as `reasoning_effort` where the API takes it (OpenAI's reasoning models, gpt-oss
    on vLLM); None sends nothing."""
    tags: ReasoningTags = DEFAULT_TAGS
    """The tags thinking is split out of the reply's text on."""


NO_REASONING_OPTIONS = ReasoningOptions()


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
    reasoning: ReasoningOptions = NO_REASONING_OPTIONS
    """How a reasoning model is asked to think, and how its thinking is split off."""

    def cache_parts(self) -> dict[str, JsonValue]:
        """The fields as the cache key holds them: the reasoning options only when set.

        Left out at their defaults, so every key made before they existed still matches.
        """
        parts = self.model_dump(mode="json")
        if self.reasoning == NO_REASONING_OPTIONS:
            del parts["reasoning"]
        return parts


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
    attempts: int = Field(default=1, ge=1)
    """Requests sent to get this reply, retries included: a slow server that timed out twice
    answered the third. Counted with the item's result beside its calls."""
    retried_usage: Usage = Usage()
    """Tokens of replies that came back yet were retried (a 200 without choices): spent by the
    server, so counted with the item's usage, though not in `usage`, this reply's own."""


def reply_turn(completion: Completion) -> Message:
    """The assistant turn a reply adds to a conversation: its answer, its thinking kept apart."""
    return Message(
        role="assistant", content=completion.text, reasoning=completion.reasoning or None
    )


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
