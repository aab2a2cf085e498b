"""A deterministic stand-in model for tests and dry runs; never what a benchmark reports on."""

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from rulebench.core.errors import ConfigError, DataError, ModelError, TransientModelError
from rulebench.core.items import content_hash
from rulebench.core.json_text import parse_json_text
from rulebench.core.messages import Completion, GenerateConfig, Message, Usage, merge_system_message
from rulebench.core.reasoning import split_completion
from rulebench.core.text import surrogate_warning
from rulebench.models.base import BackendOptions, ModelInfo, parse_backend_args

logger = logging.getLogger(__name__)

Mode = Literal["echo", "fixed", "rules", "replay"]
ConversationKey = tuple[tuple[str, str], ...]


class ScriptedRule(BaseModel):
    """Reply `reply` (or fail with `error`) when any message sent contains `contains`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    contains: str
    reply: str = ""
    error: str | None = None
    transient: bool = True
    """Whether `error` is raised as retryable (TransientModelError) or final (ModelError)."""


class ScriptedConfig(BaseModel):
    """Settings of the scripted backend, from `-M key=value`."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    reply: str = "OK"
    """The fixed reply, and the fallback of `rules` when no rule matches."""
    rules: Path | None = None
    """JSON file with a list of {"contains": ..., "reply": ...} rules (mode `rules`)."""
    file: Path | None = None
    """A run exported as JSONL (`rulebench runs export`) whose replies to replay (mode `replay`)."""
    delay_s: float = Field(default=0.0, ge=0, le=3600)
    """Wait before each reply, standing in for generation time."""
    system_role: bool = True
    thinking: str = ""
    """Put before every reply between think tags, standing in for a reasoning model whose
    thinking the backends split from its answer (`-M thinking=...`)."""


def conversation_key(messages: Sequence[Message]) -> ConversationKey:
    """Key a conversation by its exact roles and texts."""
    return tuple((m.role, m.content) for m in messages)


def load_replay(path: Path) -> dict[ConversationKey, str]:
    """Map every conversation prefix in an exported run to the assistant reply that followed it."""
    replies: dict[ConversationKey, str] = {}
    for number, line in enumerate(_read_text(path, "replay").split("\n"), start=1):
        if not line.strip():
            continue
        row = _parse_json(line, f"{path}: line {number}")
        turns = row.get("messages") if isinstance(row, dict) else None
        try:
            if not isinstance(turns, list):
                raise ValueError("no 'messages' list")
            messages = [Message.model_validate(turn) for turn in turns]
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            raise ConfigError(f"{path}: line {number}: not an exported result ({exc})") from None
        for index, message in enumerate(messages):
            if message.role == "assistant" and index > 0:
                replies[conversation_key(messages[:index])] = message.content
    return replies


def load_rules(path: Path) -> tuple[ScriptedRule, ...]:
    """Read a JSON list of scripted rules, naming the file and entry on error."""
    raw = _parse_json(_read_text(path, "rules"), str(path))
    try:
        if not isinstance(raw, list):
            raise ValueError(f"a JSON {type(raw).__name__}, not a list")
        return tuple(ScriptedRule.model_validate(entry) for entry in raw)
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        raise ConfigError(f"{path}: not a list of scripted rules: {exc}") from None


def _read_text(path: Path, mode: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"scripted/{mode}: {path}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise ConfigError(f"scripted/{mode}: cannot read {path}: {exc.strerror}") from None


def _parse_json(text: str, where: str) -> JsonValue:
    """Strict JSON (see core.json_text); a bad file is a ConfigError, as it came with -M."""
    try:
        value, surrogates = parse_json_text(text, where)
    except DataError as exc:
        raise ConfigError(str(exc)) from None
    if surrogates:
        logger.warning("%s: %s", where, surrogate_warning(surrogates, "the text"))
    return value


class ScriptedModel:
    """Replies by a script: echo the last user turn, a fixed text, rules, or a recorded run."""

    def __init__(  # noqa: PLR0913 - a test double with independent knobs
        self,
        mode: Mode = "echo",
        reply: str = "OK",
        rules: Sequence[ScriptedRule] = (),
        replay: Mapping[ConversationKey, str] | None = None,
        delay_s: float = 0.0,
        system_role: bool = True,
        thinking: str = "",
    ) -> None:
        self.mode = mode
        self.reply = reply
        self.rules = tuple(rules)
        self.replay = dict(replay or {})
        self.delay_s = delay_s
        self.thinking = thinking
        self.calls: list[list[Message]] = []
        """Every conversation received, in order, so tests can check what was (not) sent."""
        # The script decides the replies, so it is part of the identity (and of cache keys).
        replayed: list[JsonValue] = [
            [[list(turn) for turn in key], text] for key, text in sorted(self.replay.items())
        ]
        parts: list[JsonValue] = [reply, [r.model_dump() for r in self.rules], replayed]
        # Only a model that thinks adds its thinking, so the identities of the others stay put.
        script = content_hash([*parts, thinking] if thinking else parts)
        self._info = ModelInfo(
            provider="scripted",
            name=mode,
            identity=f"scripted/{mode}@{script}",
            supports_system_role=system_role,
        )

    @classmethod
    def create(cls, name: str, options: BackendOptions) -> "ScriptedModel":
        """Build from a spec such as `scripted/echo` or `scripted/rules -M rules=rules.json`."""
        config = parse_backend_args(ScriptedConfig, options.args, "scripted")
        if name not in ("echo", "fixed", "rules", "replay"):
            raise ConfigError(f"unknown scripted model '{name}': use echo, fixed, rules or replay")
        if name == "replay" and config.file is None:
            raise ConfigError("scripted/replay needs -M file=<exported run .jsonl>")
        return cls(
            mode=name,  # type: ignore[arg-type]  # checked against the Mode values just above
            reply=config.reply,
            rules=load_rules(config.rules) if config.rules else (),
            replay=load_replay(config.file) if config.file else None,
            delay_s=config.delay_s,
            system_role=config.system_role,
            thinking=config.thinking,
        )

    @property
    def info(self) -> ModelInfo:
        """Provider, name and identity of the model."""
        return self._info

    async def generate(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
        """Reply by the script, after `delay_s`, truncated to `max_tokens` words, thinking split."""
        start = time.perf_counter()
        sent = list(messages)
        merged = not self._info.supports_system_role and any(m.role == "system" for m in sent)
        if merged:
            sent = merge_system_message(sent)
        self.calls.append(sent)
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        reply = self._reply_to(sent)
        if self.thinking:
            tags = config.reasoning.tags
            reply = f"{tags.start}{self.thinking}{tags.end}{reply}"
        words = reply.split(" ")
        text = " ".join(words[: config.max_tokens])
        completion = Completion(
            text=text,
            usage=Usage(
                prompt_tokens=sum(len(m.content.split()) for m in sent),
                completion_tokens=min(len(words), config.max_tokens),
            ),
            latency_s=time.perf_counter() - start,
            finish_reason="length" if len(words) > config.max_tokens else "stop",
            system_merged=merged,
        )
        return split_completion(completion, config.reasoning.tags)

    def _reply_to(self, messages: list[Message]) -> str:
        if self.mode == "echo":
            return next((m.content for m in reversed(messages) if m.role == "user"), "")
        if self.mode == "replay":
            try:
                return self.replay[conversation_key(messages)]
            except KeyError:
                raise ModelError(
                    "scripted/replay: the recorded run has no reply to this conversation"
                ) from None
        if self.mode == "rules":
            for rule in self.rules:
                if any(rule.contains in m.content for m in messages):
                    if rule.error is not None:
                        error = TransientModelError if rule.transient else ModelError
                        raise error(rule.error)
                    return rule.reply
        return self.reply

    async def aclose(self) -> None:
        """Nothing to release."""
