"""What the local backends (llamacpp, hf) share: the system-role fallback and stop strings."""

import logging
import time
from collections.abc import Callable, Sequence
from typing import Literal, Protocol

from rulebench.core.messages import Completion, Message, Usage, merge_system_message

logger = logging.getLogger(__name__)

SystemRoleSetting = Literal["auto", "yes", "no"]
"""`-M system_role=`: auto reads the chat template; yes/no overrule it."""

ChatRenderer = Callable[[list[dict[str, str]]], str]
"""Renders role/content dicts with a model's chat template, generation prompt included."""

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


def resolve_system_role(setting: SystemRoleSetting, render: ChatRenderer) -> bool:
    """Decide whether system messages go to the model as such, from the setting and template."""
    if setting == "auto":
        return template_takes_system(render)
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


def to_chat_dicts(messages: Sequence[Message]) -> list[dict[str, str]]:
    """Turn messages into the role/content dicts chat templates expect."""
    return [{"role": m.role, "content": m.content} for m in messages]


def cut_at_stop(text: str, stops: Sequence[str]) -> tuple[str, bool]:
    """Cut `text` before the earliest stop string; also say whether one occurred."""
    positions = [index for stop in stops if stop and (index := text.find(stop)) >= 0]
    if not positions:
        return text, False
    return text[: min(positions)], True


class LocalResult(Protocol):
    """What a local backend's worker returns for one generation (read-only fields)."""

    @property
    def text(self) -> str:
        """The reply."""
        ...

    @property
    def prompt_tokens(self) -> int:
        """Tokens in the prompt."""
        ...

    @property
    def completion_tokens(self) -> int:
        """Tokens generated."""
        ...

    @property
    def finish_reason(self) -> str:
        """Why generation stopped."""
        ...


def to_completion(result: LocalResult, started: float, merged: bool) -> Completion:
    """A worker's result as a Completion, timed from `started` (a perf_counter reading)."""
    return Completion(
        text=result.text,
        usage=Usage(prompt_tokens=result.prompt_tokens, completion_tokens=result.completion_tokens),
        latency_s=time.perf_counter() - started,
        finish_reason=result.finish_reason,
        system_merged=merged,
    )
