"""A conversation as its share link shows it: a frozen copy of the owner's page, nothing secret.

The copy is taken when the owner clicks Share, not kept live: the owner goes on playing,
undoing and editing unwatched, and sharing again refreshes the copy under the same link. It is
built from the owner's own page view, so it shows no more than the owner saw: the instructions
as the player sees them (the scenario's secrets as [REDACTED], the parameters never), the turns
and replies as played, thinking collapsed, each lane's verdicts. Every text then passes
`hide_secrets` for others (URL credentials, tokens, secret `-M` values; the save folder and the
RuLES clone cut to names, on a loopback server too), the value of every secret-named
environment variable of the server (`OPENAI_API_KEY`, `HF_TOKEN`...) is hidden wherever it
shows, and a model label loses any folder of a local file. Forms, costs, the conversation's
id and the visitor's are left out.
"""

import os
import time
from collections.abc import Callable
from pathlib import PurePath
from typing import Literal

from pydantic import BaseModel, ConfigDict, JsonValue

from rulebench.core.credentials import scrub_secrets
from rulebench.report.redaction import is_secret_name
from rulebench.web.playground.play_view import conversation_view
from rulebench.web.playground.state import Conversation, Playground


class _Shown(BaseModel):
    # extra="ignore": each copy is read from the owner's page view, whose form fields (draft,
    # save file, costs) are dropped here, so a field added to that view is never shared unseen.
    model_config = ConfigDict(frozen=True, extra="ignore")


class SharedRule(_Shown):
    """One rule of the scenario, and the modes whose verdict it broke."""

    behavior: str
    text: str
    broken_in: tuple[str, ...] = ()


class SharedVerdict(_Shown):
    """One evaluation mode's verdict on a lane."""

    mode: str
    is_game_mode: bool
    state: Literal["passed", "failed"]
    reason: str
    rule: str | None = None
    """The text of the rule that broke, when it failed."""


class SharedMessage(_Shown):
    """One turn: the user's message or the model's reply (with its thinking, if any)."""

    role: str
    content: str
    reasoning: str | None = None
    is_reasoning_unfinished: bool = False
    broke_in: tuple[str, ...] = ()
    """The modes whose verdict this reply broke."""


class SharedLane(_Shown):
    """One model's side of the conversation."""

    name: str
    model: str
    rules: tuple[SharedRule, ...]
    verdicts: tuple[SharedVerdict, ...]
    messages: tuple[SharedMessage, ...]


class SharedConversation(_Shown):
    """Everything a share link's page shows, as text already cleared of secrets."""

    scenario: str
    placement: str
    asked_placement: str
    mode: str
    prompts: str
    system_message: str
    temperature: float
    max_tokens: int
    params_source: str
    """How the parameters were chosen ("seed 17", "set by hand"): never the parameters."""
    instructions: str
    """The scenario's prompt with its secrets hidden, as the player saw it."""
    lanes: tuple[SharedLane, ...]
    rule_broke: bool
    user_turns: int
    shared_s: float
    """When the copy was taken (seconds since the epoch)."""

    @property
    def side_by_side(self) -> bool:
        """Whether two models played (two columns)."""
        return len(self.lanes) > 1

    def shared_at(self) -> str:
        """When the copy was taken, as the page says it (UTC)."""
        return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(self.shared_s))


def shared_copy(playground: Playground, conversation: Conversation) -> SharedConversation:
    """The conversation as its share link will show it, from now until it is shared again."""
    view = conversation_view(playground, conversation)
    view |= {"user_turns": conversation.user_turns, "shared_s": time.time()}
    copy = SharedConversation.model_validate(view)
    labels = [model_label(lane.model_spec) for lane in conversation.lanes]
    copy = copy.model_copy(
        update={
            "lanes": tuple(
                lane.model_copy(update={"model": label})
                for lane, label in zip(copy.lanes, labels, strict=True)
            )
        }
    )
    cleared = _each_text(copy.model_dump(mode="json"), _hider(playground))
    return SharedConversation.model_validate(cleared)


def model_label(spec: str) -> str:
    """A model spec without the folder of a local file (`llamacpp//srv/m.gguf`: `m.gguf`)."""
    provider, slash, name = spec.partition("/")
    if slash and name.startswith(("/", "~", "./", "../", "\\")):
        return f"{provider}/{PurePath(name.replace(chr(92), '/')).name}"
    return spec


MIN_SECRET_CHARS = 8
"""Shorter values of secret-named variables are not hunted for (a "1" would hide every 1)."""


def _hider(playground: Playground) -> Callable[[str], str]:
    """Clears one text: the playground's rules for others, then the server's own keys."""
    found = {v for k, v in os.environ.items() if is_secret_name(k) and len(v) >= MIN_SECRET_CHARS}
    keys = tuple(sorted(found, key=len, reverse=True))
    return lambda text: scrub_secrets(playground.hide_secrets(text, for_others=True), keys)


def _each_text(value: JsonValue, hide: Callable[[str], str]) -> JsonValue:
    """`value` with `hide` applied to every string in it, however deep (keys stay)."""
    if isinstance(value, str):
        return hide(value)
    if isinstance(value, list):
        return [_each_text(item, hide) for item in value]
    if isinstance(value, dict):
        return {key: _each_text(item, hide) for key, item in value.items()}
    return value
