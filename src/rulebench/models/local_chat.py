"""What the local backends (llamacpp, hf) share: prompt rendering, system-role fallback, stops.

A local model is prompted through its chat template, a chat template from a file
(`-M chat_template=FILE.jinja`), or a plain-text transcript (`-M transcript=default|FILE.toml`,
and automatically for a model that ships no chat template); `LocalPrompt` is that choice made.
The thinking switch (`--thinking on|off`) reaches a chat template as its `enable_thinking`
variable, rendered per request; a transcript has no such variable, which is recorded.
"""

import hashlib
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Literal, Protocol

from rulebench.core.errors import ConfigError, ModelError
from rulebench.core.messages import (
    Completion,
    GenerateConfig,
    Message,
    Usage,
    merge_system_message,
)
from rulebench.core.reasoning import DEFAULT_TAGS, ReasoningTags, split_completion
from rulebench.models.transcript import (
    DEFAULT_TRANSCRIPT,
    TranscriptTemplate,
    clean_reply,
    load_transcript,
)

logger = logging.getLogger(__name__)

SystemRoleSetting = Literal["auto", "yes", "no"]
"""`-M system_role=`: auto reads the chat template; yes/no overrule it."""

ChatRenderer = Callable[[list[dict[str, str]]], str]
"""Renders role/content dicts with a model's chat template, generation prompt included."""

TemplateVariables = Mapping[str, object]
"""Extra names a chat template may read beside `messages` (`enable_thinking`)."""

NO_VARIABLES: TemplateVariables = MappingProxyType({})

THINKING_VARIABLE = "enable_thinking"
"""The name Qwen3-style templates (and vLLM's, SGLang's chat_template_kwargs) read the switch as."""


class TemplateRenderer(Protocol):
    """A ChatRenderer that also takes template variables; a template ignores names it never reads.

    Any TemplateRenderer is a ChatRenderer too (called without variables).
    """

    def __call__(
        self, messages: list[dict[str, str]], variables: TemplateVariables = NO_VARIABLES, /
    ) -> str:
        """Render `messages`, generation prompt included, with `variables` in scope."""
        ...


_PROBE = "rulebench-system-probe-5d1c"


def template_takes_system(render: ChatRenderer) -> bool:
    """Tell whether a chat template keeps a system message.

    Templates without a system role either raise (Gemma's `raise_exception`) or drop the text
    silently, so both count as "no".
    """
    probe = [{"role": "system", "content": _PROBE}, {"role": "user", "content": "Hi"}]
    try:
        text = render(probe)
    # Templates fail with jinja2 errors, ValueError from raise_exception or TypeError; any
    # failure here means the same thing: this template cannot take a system message.
    except Exception:
        return False
    return _PROBE in text


def resolve_system_role(
    setting: SystemRoleSetting, render: ChatRenderer, known: bool | None = None
) -> bool:
    """Decide whether system messages go to the model as such, from the setting and template.

    `known` is the template's answer found before (saving a render), None to probe it now.
    """
    if setting == "auto":
        return template_takes_system(render) if known is None else known
    return setting == "yes"


class SystemFallback:
    """Merges system messages into the first user turn for a model without a system role.

    The merge is reported on every Completion (`system_merged`) and warned about once per model,
    so the fallback is never silent.
    """

    def __init__(self, model_name: str, supports_system_role: bool) -> None:
        self.model_name = model_name
        self.supports_system_role = supports_system_role
        self._warned = False

    def apply(self, messages: Sequence[Message]) -> tuple[list[Message], bool]:
        """Return the messages to render and whether system text was merged."""
        sent = list(messages)
        if self.supports_system_role or not any(m.role == "system" for m in sent):
            return sent, False
        if not self._warned:
            self._warned = True
            logger.warning(
                "%s has no system role: system messages are merged into the first user turn "
                "(recorded as system_merged)",
                self.model_name,
            )
        return merge_system_message(sent), True


class ThinkingSwitch:
    """Turns a request's thinking switch into chat-template variables, or notes it cannot.

    A plain-text transcript has no `enable_thinking`: a set switch is then warned about once per
    model and recorded in each completion's warnings, so it is never silently dropped.
    """

    NOT_APPLIED = (
        f"the thinking switch was not applied: a plain-text transcript has no {THINKING_VARIABLE} "
        "(prompt with a chat template to use --thinking)"
    )

    def __init__(self, model_name: str, is_applicable: bool) -> None:
        self.model_name = model_name
        self.is_applicable = is_applicable
        """Whether prompts come from a chat template, the only thing that reads the switch."""
        self._warned = False

    def variables(self, thinking: bool | None) -> TemplateVariables:
        """The template variables for a switch (None: none, the template's default holds)."""
        if thinking is None or not self.is_applicable:
            return NO_VARIABLES
        return MappingProxyType({THINKING_VARIABLE: thinking})

    def warnings(self, thinking: bool | None) -> tuple[str, ...]:
        """What to record on a completion: why a set switch did not reach the prompt."""
        if thinking is None or self.is_applicable:
            return ()
        if not self._warned:
            self._warned = True
            logger.warning("%s: %s", self.model_name, self.NOT_APPLIED)
        return (self.NOT_APPLIED,)


def to_chat_dicts(messages: Sequence[Message]) -> list[dict[str, str]]:
    """Turn messages into the role/content dicts chat templates expect."""
    return [{"role": m.role, "content": m.content} for m in messages]


def cut_at_stop(text: str, stops: Sequence[str]) -> tuple[str, bool]:
    """Cut `text` before the earliest stop string; also say whether one occurred."""
    positions = [index for stop in stops if stop and (index := text.find(stop)) >= 0]
    if not positions:
        return text, False
    return text[: min(positions)], True


@dataclass(frozen=True)
class Generated:
    """What a local backend's worker returns for one generation, before it becomes a Completion."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str
    """Why generation stopped: "stop" or "length"."""


def ends_in_open_thinking(prompt: str, tags: ReasoningTags = DEFAULT_TAGS) -> bool:
    """Whether the prompt ends by opening a think block, so the reply starts inside it.

    DeepSeek-R1's template does so, and Qwen3-style ones with thinking on. Only the very end
    counts: a start tag in a message's text opens nothing.
    """
    return prompt.rstrip().endswith(tags.start)


def to_completion(
    result: Generated,
    started: float,
    merged: bool,
    tags: ReasoningTags = DEFAULT_TAGS,
    is_thinking_open: bool = False,
) -> Completion:
    """A worker's result as a Completion, timed from `started` (a perf_counter reading).

    The generated text holds the thinking too; it is split here (`split_completion`), as the
    OpenAI-compatible backend splits a server's reply, so scoring reads the answer only. With
    `is_thinking_open` (the prompt opened the think block) the text starts as thinking: one
    that never closes is thinking without an answer, not an answer.
    """
    text = tags.start + result.text if is_thinking_open else result.text
    completion = Completion(
        text=text,
        usage=Usage(prompt_tokens=result.prompt_tokens, completion_tokens=result.completion_tokens),
        latency_s=time.perf_counter() - started,
        finish_reason=result.finish_reason,
        system_merged=merged,
    )
    return split_completion(completion, tags)


def read_chat_template(path: Path, provider: str) -> tuple[str, str]:
    """A chat template file's text and a short sha256 of it, syntax checked.

    Raises:
        ConfigError: the file is missing, unreadable or not valid Jinja (its line is given).
    """
    import jinja2

    try:
        text = path.expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{provider}: -M chat_template={path}: cannot be read: {exc}") from None
    try:
        jinja2.Environment().parse(text)
    except jinja2.TemplateSyntaxError as exc:
        raise ConfigError(
            f"{provider}: chat template {path}: line {exc.lineno}: {exc.message}"
        ) from None
    return text, hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class PromptOptions:
    """The `-M` settings that decide how a local backend writes its prompts."""

    transcript: str | None = None
    """`default` or a TOML file: prompt with a plain-text transcript instead of a chat template."""
    chat_template: Path | None = None
    """A Jinja file that replaces the model's own chat template."""
    system_role: SystemRoleSetting = "auto"


@dataclass(frozen=True)
class TemplateSource:
    """What a backend renders chat templates with."""

    native: TemplateRenderer | None
    """The model's own chat template; None when the model ships none."""
    compile: Callable[[str], TemplateRenderer]
    """A renderer for the text of another chat template (an override file)."""
    bos_text: str = ""
    """Put before a transcript prompt when the backend's tokenizing would not add BOS itself."""
    native_takes_system: bool | None = None
    """Whether the model's own template keeps a system message, if known (None: probe it)."""


@dataclass(frozen=True)
class LocalPrompt:
    """How one local model turns messages into prompt text, and what that adds to its identity.

    With a transcript, the system role is a labelled turn like any other, the template's stop
    sequences join each request's, and replies are cleaned (see `transcript.clean_reply`).
    """

    label: str
    render_chat: TemplateRenderer | None
    transcript: TranscriptTemplate | None
    fallback: SystemFallback
    identity_suffix: str
    """Appended to the model identity: whatever changes the prompt text keys the cache apart.
    The thinking switch is not in it: it keys the cache through the request's GenerateConfig."""
    thinking: ThinkingSwitch
    bos_text: str = ""

    def render(self, messages: Sequence[Message], thinking: bool | None = None) -> tuple[str, bool]:
        """The prompt text for the conversation, and whether system text was merged.

        `thinking` is the request's switch (`config.reasoning.thinking`); a chat template reads it
        as `enable_thinking`, so prompts (and the prefix caches' tokens) differ with it.
        """
        sent, merged = self.fallback.apply(messages)
        if self.transcript is not None:
            return self.bos_text + self.transcript.render(sent), merged
        assert self.render_chat is not None  # choose_prompt sets one of the two
        variables = self.thinking.variables(thinking)
        try:
            return self.render_chat(to_chat_dicts(sent), variables), merged
        # A template may reject a conversation (roles not alternating, ...) with any exception.
        except Exception as exc:
            raise ModelError(
                f"{self.label}: the chat template rejected the conversation: {exc}"
            ) from exc

    def request_config(self, config: GenerateConfig) -> GenerateConfig:
        """The config to generate with: a transcript's stop sequences added to the request's."""
        if self.transcript is None:
            return config
        _, stop = self.transcript.prompt_and_stop((), config)
        return config.model_copy(update={"stop": stop})

    def finish(self, completion: Completion, config: GenerateConfig) -> Completion:
        """The completion as the task sees it: a transcript reply cleaned.

        A thinking switch the prompt could not carry is recorded in its warnings.
        """
        notes = self.thinking.warnings(config.reasoning.thinking)
        if notes:
            completion = completion.model_copy(update={"warnings": (*completion.warnings, *notes)})
        if self.transcript is None:
            return completion
        return completion.model_copy(update={"text": clean_reply(completion.text)})

    def scored_choices(self, choices: Sequence[str]) -> tuple[str, ...]:
        """The choices as continuations of the prompt: after a transcript's reply lead.

        Scored right after "Assistant:", "Paris" would be a word glued to the label, which
        no reply is, and the model scores it far below " Paris".
        """
        lead = self.transcript.reply_lead if self.transcript is not None else ""
        return tuple(lead + choice for choice in choices)

    @property
    def transcript_json(self) -> str | None:
        """The transcript in force, for ModelInfo.transcript."""
        return None if self.transcript is None else self.transcript.to_json()


def choose_prompt(label: str, options: PromptOptions, source: TemplateSource) -> LocalPrompt:
    """Decide between chat template, override template and transcript for model `label`.

    Raises:
        ConfigError: both a transcript and a chat template are set, or a file is bad.
    """
    provider = label.split("/", 1)[0]
    if options.transcript is not None and options.chat_template is not None:
        raise ConfigError(
            f"{provider}: -M transcript and -M chat_template exclude each other: a transcript "
            "replaces the chat template"
        )
    render_chat: TemplateRenderer | None = source.native
    transcript: TranscriptTemplate | None = None
    suffix = ""
    if options.transcript is not None:
        transcript = load_transcript(options.transcript)
    elif options.chat_template is not None:
        text, sha = read_chat_template(options.chat_template, provider)
        render_chat, suffix = source.compile(text), f"+chat_template:{sha}"
    elif source.native is None:
        logger.warning(
            "%s has no chat template: prompting with the default transcript (recorded with the "
            "run; -M transcript=FILE.toml or -M chat_template=FILE.jinja to choose)",
            label,
        )
        transcript = DEFAULT_TRANSCRIPT
    if transcript is not None:
        suffix = f"+transcript:{transcript.fingerprint}"
        # A labelled turn is as good a system role as any: only an explicit "no" merges.
        supports_system = options.system_role != "no"
    else:
        assert render_chat is not None
        known = source.native_takes_system if render_chat is source.native else None
        supports_system = resolve_system_role(options.system_role, render_chat, known)
    if not supports_system:
        # The same messages render differently once merged, so cached replies must differ.
        suffix += "+merged-system"
    fallback = SystemFallback(label, supports_system)
    thinking = ThinkingSwitch(label, is_applicable=transcript is None)
    return LocalPrompt(label, render_chat, transcript, fallback, suffix, thinking, source.bos_text)
