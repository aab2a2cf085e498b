r"""The transcript template: how a conversation becomes plain text for a completion-only model.

Models without a chat API or chat template (base models, GPT-3.5-instruct-style completion
endpoints, GGUFs shipped without a template) are prompted with the conversation written out as
labelled turns, the way the RuLES paper prompted its text models. The model continues after the
generation prompt, and generation stops where it would start writing the next user turn.

The default template renders::

    System: <system message>

    User: <user message>

    Assistant: <assistant message>

    User: <user message>

    Assistant:

and stops at `"\nUser:"`. A TOML file overrides any of its keys; the keys not in the file keep
their default value::

    # my_transcript.toml
    system = "### Instructions\n{content}\n\n"
    user = "### Human\n{content}\n\n"
    assistant = "### Bot\n{content}\n\n"
    generation_prompt = "### Bot\n"
    stop = ["\n### Human"]

Each turn format holds exactly one `{content}` placeholder, replaced by the message text; any
other brace is literal text (formats are not `str.format` strings, so a message or template with
braces in it renders as written). The whole template (its canonical JSON) is recorded with every
result, and its fingerprint joins the model identity so cached replies of different templates
never mix.
"""

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from rulebench.core.errors import ConfigError
from rulebench.core.messages import GenerateConfig, Message

PLACEHOLDER = "{content}"
"""Where a turn format puts the message text."""


class TranscriptTemplate(BaseModel):
    """Turn formats, generation prompt and stop sequences of a plain-text transcript."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    system: str
    """Format of a system turn, e.g. `"System: {content}\\n\\n"`."""
    user: str
    """Format of a user turn."""
    assistant: str
    """Format of an earlier assistant turn (the reply being asked for uses generation_prompt)."""
    generation_prompt: str
    """Appended after the last turn; the model's reply is what it writes after this."""
    stop: tuple[str, ...]
    """Where a reply ends: the start of the next user turn, as the model would write it."""

    @field_validator("system", "user", "assistant")
    @classmethod
    def _has_one_placeholder(cls, value: str) -> str:
        count = value.count(PLACEHOLDER)
        if count != 1:
            raise ValueError(f"must contain {PLACEHOLDER} exactly once (found {count})")
        return value

    @field_validator("stop")
    @classmethod
    def _stops_not_empty(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        # An empty stop string would end every reply before its first character.
        if any(not stop for stop in value):
            raise ValueError("stop sequences must be non-empty strings")
        return value

    def render(self, messages: Sequence[Message]) -> str:
        """The whole prompt: every turn in its format, then the generation prompt."""
        formats = {"system": self.system, "user": self.user, "assistant": self.assistant}
        turns = [formats[m.role].replace(PLACEHOLDER, m.content) for m in messages]
        return "".join(turns) + self.generation_prompt

    def prompt_and_stop(
        self, messages: Sequence[Message], config: GenerateConfig
    ) -> tuple[str, tuple[str, ...]]:
        """The prompt and the stop sequences to send: the template's, then the request's."""
        return self.render(messages), tuple(dict.fromkeys((*self.stop, *config.stop)))

    @property
    def reply_lead(self) -> str:
        """The text between the generation prompt and a reply (" " in "Assistant: {content}").

        A choice scored by log-likelihood follows it, as a written reply would.
        """
        head = self.assistant.split(PLACEHOLDER, 1)[0]
        return (
            head.removeprefix(self.generation_prompt)
            if head.startswith(self.generation_prompt)
            else ""
        )

    def to_json(self) -> str:
        """Canonical JSON (sorted keys, no spaces): what is stored with a run's results."""
        return json.dumps(
            self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )

    @property
    def fingerprint(self) -> str:
        """Short sha256 of the canonical JSON, for model identities and cache keys."""
        return hashlib.sha256(self.to_json().encode("utf-8")).hexdigest()[:12]


DEFAULT_TRANSCRIPT = TranscriptTemplate(
    system="System: {content}\n\n",
    user="User: {content}\n\n",
    assistant="Assistant: {content}\n\n",
    generation_prompt="Assistant:",
    stop=("\nUser:",),
)
"""Roles as labelled turns separated by blank lines; replies stop at the next `User:` line."""


def load_transcript(value: str) -> TranscriptTemplate:
    """The template `-M transcript=VALUE` names: `default`, or a path to a TOML file.

    Raises:
        ConfigError: the file is missing or unreadable, is not valid TOML (its line is given),
            or has an unknown key or a bad value (the key is named).
    """
    if value == "default":
        return DEFAULT_TRANSCRIPT
    path = Path(value)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"transcript file {value}: not found (use -M transcript=default or a .toml path)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"transcript file {value}: cannot be read: {exc}") from None
    import tomllib  # here, not at the top: start-up imports only what every run needs

    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # The decoder's message carries "(at line N, column M)".
        raise ConfigError(f"transcript file {value}: invalid TOML: {exc}") from None
    return _from_table(table, value)


def _from_table(table: dict[str, object], source: str) -> TranscriptTemplate:
    """The default template with the file's keys put over it; errors name the file and key."""
    known = sorted(TranscriptTemplate.model_fields)
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise ConfigError(
            f"transcript file {source}: unknown key {unknown[0]!r} (known keys: {', '.join(known)})"
        )
    merged = {**DEFAULT_TRANSCRIPT.model_dump(), **table}
    try:
        return TranscriptTemplate.model_validate(merged, strict=False)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = str(err["loc"][0]) if err["loc"] else "?"
        raise ConfigError(f"transcript file {source}: key {key!r}: {err['msg']}") from None


def clean_reply(text: str) -> str:
    """The part of a plain-text reply that is the answer: surrounding whitespace stripped.

    The model writes its reply after the generation prompt, usually starting with the space that
    follows a label like "Assistant:", and the stop sequence cuts it just before the next turn,
    leaving the blank line that separates turns. Neither is part of the answer, and chat APIs do
    not return them either, so they are removed to keep replies comparable across modes.
    """
    return text.strip()
