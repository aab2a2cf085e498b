"""The playground's state: each visitor's conversations, the models they talk to, and limits.

Conversations live in this process's memory, keyed by a random id and bound to the visitor's
own random cookie: a visitor sees only the conversations it started, and several people play
at once, each reply awaited on the event loop (local backends decode in their own thread).
Every reply comes through the engine's `Session` (accounting, retries in the backends) with the
store's cache read-only: a request the store has answered before is served from it, and a new
reply is not written, because `rulebench serve` writes nothing to the store. What a visitor
keeps goes to the save folder (`saved_cases`).
"""

import asyncio
import random
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from rulebench.core.errors import ConfigError
from rulebench.core.messages import GenerateConfig
from rulebench.core.wording import Prompts, UpstreamText
from rulebench.engine.cache import StoredReplies
from rulebench.engine.catalog import default_max_tokens
from rulebench.engine.task import Session
from rulebench.models.base import BackendOptions
from rulebench.models.registry import DEFAULT_MODEL
from rulebench.report.redaction import REDACTED, is_secret_name, redact_text
from rulebench.scenarios.base import EvalMode
from rulebench.scenarios.play import PlaySession
from rulebench.scenarios.protocol import Placement, Protocol
from rulebench.scenarios.registry import scenario_class
from rulebench.web.model_pool import ModelPool
from rulebench.web.quotas import Quotas, VisitorLimits

MAX_MESSAGE_CHARS = 20_000
"""One typed turn; longer ones are refused before any model call."""
MAX_USER_TURNS = 50
MAX_CONVERSATIONS = 200
"""Kept in memory at once; past that the least recently used one is forgotten."""


class PlaygroundConfig(BaseModel):
    """What `rulebench serve` gives the playground: its default model and its save folder."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    save_dir: Path = Path("rulebench-cases")
    """The only folder the playground writes to (created on the first save)."""
    model: str = DEFAULT_MODEL
    model_args: dict[str, str] = Field(default_factory=dict)
    """`-M key=value` for `model` only; never shown on a page (it may hold a key)."""
    base_url: str | None = None
    any_model: bool = True
    """Whether visitors may name another model than `model`. Off when others can reach the
    app: a spec can load any local file as a model or spend the server's API keys."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Reply length limit; default a full scenarios run's, so saved cases replay alike."""
    upstream: UpstreamText | None = None
    """The RuLES clone given to `rulebench serve --upstream PATH`: the only place upstream's
    instruction text is read from (visitors choose the wording, never a path)."""
    quotas: Quotas = Field(default_factory=Quotas.unlimited)
    """Per-visitor allowances; none by default (loopback), `Quotas()` when others reach it."""


class GameSetup(BaseModel):
    """A new conversation as the form asks for it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    scenario: str
    seed: int | None = Field(default=None, ge=0, lt=2**63)
    params: dict[str, JsonValue] | None = None
    """Hand-set parameters, validated by the scenario's params model; None: sample by seed."""
    model: str
    placement: Placement = "user"
    mode: EvalMode = "compat"
    prompts: Prompts = "rulebench"


@dataclass
class Conversation:
    """One visitor's game: the play session and what its pages need besides."""

    id: str
    visitor: str
    model_spec: str
    play: PlaySession
    params_source: str
    """How the parameters were chosen, e.g. "seed 17" or "set by hand"."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    """One reply at a time: a second click waits rather than interleaving turns."""
    last_used_s: float = field(default_factory=time.monotonic)
    notice: str | None = None
    """Shown once on the next page (what a save did)."""

    @property
    def user_turns(self) -> int:
        """How many turns the visitor has sent."""
        return sum(m.role == "user" for m in self.play.turns)


class NoConversation(Exception):
    """The id names no conversation of this visitor (a 404 page says so)."""


def new_token() -> str:
    """A random, unguessable id (128 bits)."""
    return secrets.token_urlsafe(16)


class Playground:
    """Every visitor's conversations and the models they use, for one app."""

    def __init__(self, config: PlaygroundConfig, store: Path) -> None:
        self.config = config
        self._cache = StoredReplies(store)
        self._generate = GenerateConfig(
            max_tokens=config.max_tokens or default_max_tokens("scenarios", {"per_group": None})
        )
        self._conversations: dict[str, Conversation] = {}
        self.limits = VisitorLimits(config.quotas)
        self.models = ModelPool(
            config.model,
            BackendOptions(args=config.model_args, base_url=config.base_url),
            config.any_model,
        )
        # Tests serve one app from several event loops (one per TestClient), so the shared
        # maps are guarded by a thread lock, held for dictionary work only.
        self._lock = threading.Lock()

    def hide_secrets(self, text: str) -> str:
        """`text` as a page may show it: URL credentials, tokens and secret `-M` values hidden."""
        for name, value in self.config.model_args.items():
            if value and is_secret_name(name):
                text = text.replace(value, REDACTED)
        return redact_text(text)

    async def start(
        self, visitor: str, setup: GameSetup, source: str = "set by hand"
    ) -> Conversation:
        """Open a conversation: scenario instance, model, engine session, protocol.

        `source` says where hand-set parameters come from (a saved case's file and id).
        """
        scenario_type = scenario_class(setup.scenario)
        self.limits.check_new_conversation(visitor)
        if setup.params is not None:
            scenario = scenario_type.from_params(setup.params)
        else:
            seed = setup.seed if setup.seed is not None else secrets.randbelow(2**31)
            scenario, source = scenario_type.sample(random.Random(seed)), f"seed {seed}"
        spec = setup.model.strip() or self.config.model
        model = await self.models.get(spec)
        conversation_id = new_token()
        session = Session(model, self._generate, self._cache, conversation_id)
        protocol = Protocol(
            placement=setup.placement,
            mode=setup.mode,
            prompts=setup.prompts,
            upstream=self._upstream(setup.prompts),
        )
        conversation = Conversation(
            conversation_id, visitor, spec, PlaySession(scenario, session, protocol), source
        )
        with self._lock:
            if len(self._conversations) >= MAX_CONVERSATIONS:
                oldest = min(self._conversations.values(), key=lambda c: c.last_used_s)
                del self._conversations[oldest.id]
            self._conversations[conversation_id] = conversation
        return conversation

    def _upstream(self, prompts: Prompts) -> UpstreamText | None:
        """The server's clone for upstream wording; without one, say how to give it."""
        if prompts == "rulebench":
            return None
        if self.config.upstream is None:
            raise ConfigError(
                "this server has no RuLES clone for upstream prompts: start it with "
                "`rulebench serve --upstream PATH` (your clone of normster/llm_rules)"
            )
        return self.config.upstream

    def find(self, conversation_id: str, visitor: str | None) -> Conversation:
        """The visitor's conversation with this id; NoConversation for any other."""
        with self._lock:
            found = self._conversations.get(conversation_id)
        if found is None or visitor is None or not secrets.compare_digest(found.visitor, visitor):
            raise NoConversation(
                "no such conversation: conversations live in this server's memory, for the "
                "browser that started them (a restart forgets them)"
            )
        found.last_used_s = time.monotonic()
        return found

    def conversations_of(self, visitor: str | None) -> list[Conversation]:
        """The visitor's conversations, the most recently used first."""
        if visitor is None:
            return []
        with self._lock:
            found = [c for c in self._conversations.values() if c.visitor == visitor]
        return sorted(found, key=lambda c: c.last_used_s, reverse=True)

    async def aclose(self) -> None:
        """Close every model (the app is shutting down)."""
        await self.models.aclose()
