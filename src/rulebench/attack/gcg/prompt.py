"""What GCG attacks: prompts with a target reply, split into token segments around the suffix.

The suffix goes at the end of one user message (the last one unless the prompt says which),
after one space. The prompt is rendered
with the model's own chat template, so the tokens read [before][suffix][after][target]: before
ends with that space, after is the end of the user turn plus the assistant header. Each segment
is tokenized on its own, so the suffix's ids are the same in every prompt.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rulebench.core.errors import ConfigError
from rulebench.core.messages import Message, append_suffix
from rulebench.models.hf.loading import LoadedModel, load_model, resolve_source
from rulebench.models.local_chat import to_chat_dicts
from rulebench.models.registry import EMBEDDED_MODEL_NAME, parse_spec

_MARKER = "\x00rulebench-gcg-suffix\x00"
"""Stands in for the suffix while rendering, so the template's text can be cut around it."""


class AttackPrompt(BaseModel):
    """One conversation to attack and the reply the suffix should make the model start with."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    messages: tuple[Message, ...] = Field(min_length=1)
    """The conversation up to the model's turn."""
    target: str
    """What the reply should start with (the secret, an acceptance sentence...)."""
    suffix_at: int | None = None
    """Index of the user message the suffix joins; None: the last user message. A helpful
    rule's exact trigger must stay as it is, so its suffix goes on another message."""

    @model_validator(mode="after")
    def _suffix_on_a_user_message(self) -> "AttackPrompt":
        if self.suffix_at is not None and not (
            0 <= self.suffix_at < len(self.messages)
            and self.messages[self.suffix_at].role == "user"
        ):
            raise ConfigError(f"gcg: suffix_at={self.suffix_at} is not a user message's index")
        return self


@dataclass(frozen=True)
class PromptTokens:
    """A prompt's token ids around the suffix."""

    before: tuple[int, ...]
    after: tuple[int, ...]
    target: tuple[int, ...]


def with_suffix(messages: Sequence[Message], suffix: str, at: int | None = None) -> list[Message]:
    """The messages with `suffix` appended to message `at` (default: the last user message).

    Raises:
        ConfigError: no message is from the user.
    """
    if at is None:
        at = max((i for i, m in enumerate(messages) if m.role == "user"), default=None)
    if at is None:
        raise ConfigError("gcg: a prompt needs a user message to append the suffix to")
    changed = list(messages)
    changed[at] = Message(role="user", content=append_suffix(messages[at].content, suffix))
    return changed


def tokenize_prompt(loaded: LoadedModel, prompt: AttackPrompt, space_target: bool) -> PromptTokens:
    """Render `prompt` with the chat template and tokenize the parts around the suffix.

    Raises:
        ConfigError: no user message, a template that drops the suffix, or an empty target.
    """
    marked = with_suffix(prompt.messages, _MARKER, prompt.suffix_at)
    text = loaded.render(to_chat_dicts(marked))
    if text.count(_MARKER) != 1:
        raise ConfigError("gcg: the model's chat template does not keep the user's text verbatim")
    before, after = text.split(_MARKER)
    target_text = f" {prompt.target}" if space_target else prompt.target
    target = encode(loaded, target_text)
    if not target:
        raise ConfigError(f"gcg: the target {prompt.target!r} tokenizes to nothing")
    return PromptTokens(encode(loaded, before), encode(loaded, after), target)


def encode(loaded: LoadedModel, text: str) -> tuple[int, ...]:
    """Token ids of `text` without added special tokens (the template has written those)."""
    ids: list[int] = loaded.tokenizer(text, add_special_tokens=False)["input_ids"]
    return tuple(ids)


def load_attack_model(
    spec: str,
    device: Literal["auto", "cpu", "cuda", "mps"] = "auto",
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto",
) -> LoadedModel:
    """Load the hf model a spec names; GCG needs its gradients, so no other backend will do.

    Raises:
        ConfigError: an unknown provider, one that is not hf, or weights that cannot be loaded.
    """
    provider, name = parse_spec(spec)
    if provider != "hf":
        raise ConfigError(
            f"gcg attacks hf models only: '{spec}' is a {provider} model whose gradients rulebench "
            f"cannot see; use hf/<folder, .gguf or cached hub id> (e.g. hf/{EMBEDDED_MODEL_NAME}) "
            "and evaluate the suffix on other models afterwards"
        )
    return load_model(resolve_source(name), device, dtype)
