"""The playground's state: each visitor's conversations, the models they talk to, and limits.

Conversations are keyed by a random id and bound to the visitor's own random cookie: a visitor
sees only the conversations it started, and several people play at once, each reply awaited on
the event loop (local backends decode in their own thread). Each change is written to the save
folder's playground database (`conversation_store`), and this process's memory is a cache of
it: a restarted server rebuilds a conversation from its row when it is asked for.
Every reply comes through the engine's `Session` (accounting, retries in the backends) with the
store's cache read-only: a request the store has answered before is served from it, and a new
reply is not written, because `rulebench serve` writes nothing to the store. What a visitor
keeps goes to the save folder (`saved_cases`).
"""

import asyncio
import random
import secrets
import shlex
import threading
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path

from rulebench.core.errors import ConfigError
from rulebench.core.messages import GenerateConfig
from rulebench.core.wording import Prompts, UpstreamText
from rulebench.engine.store.cache import StoredReplies
from rulebench.engine.task import Session
from rulebench.models.base import BackendOptions, Model
from rulebench.report.redaction import REDACTED, is_secret_name, redact_text
from rulebench.scenarios.base import Scenario
from rulebench.scenarios.play import PlaySession, play_reply_limit
from rulebench.scenarios.protocol import Protocol
from rulebench.scenarios.registry import scenario_class
from rulebench.web.playground.config import PlaygroundConfig
from rulebench.web.playground.conversation_store import (
    DATABASE_NAME,
    ConversationRecord,
    ConversationStore,
    ConversationSummary,
    LaneRecord,
)
from rulebench.web.playground.game_setup import GameSetup
from rulebench.web.playground.model_pool import ModelPool
from rulebench.web.playground.quotas import VisitorLimits
from rulebench.web.playground.saved_cases import hide_paths

MAX_MESSAGE_CHARS = 20_000
"""One typed turn; longer ones are refused before any model call."""
MAX_USER_TURNS = 50
MAX_CONVERSATIONS = 200
"""Kept in memory at once; past that the least recently used one is dropped (its row stays)."""
MAX_LISTED = 100
"""A visitor's conversations listed on the new-game page, the most recent first."""


@dataclass
class Lane:
    """One model's side of a conversation: its game, and a cache-free session for redraws."""

    model_spec: str
    play: PlaySession
    fresh: Session
    """Regenerated replies go here: past the store's cache, each with a new sampling seed."""
    draws: int = 0

    @property
    def user_turns(self) -> int:
        """How many user turns this lane has been sent."""
        return sum(m.role == "user" for m in self.play.turns)

    def sessions(self) -> tuple[Session, Session]:
        """Both sessions whose calls this lane has made (for its cost)."""
        return self.play.session, self.fresh


@dataclass
class Conversation:
    """One visitor's game: one lane per model, and what its pages need besides."""

    id: str
    visitor: str
    lanes: list[Lane]
    params_source: str
    """How the parameters were chosen, e.g. "seed 17" or "set by hand"."""
    created_s: float = field(default_factory=time.time)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    """One action at a time: a second click waits rather than interleaving turns."""
    last_used_s: float = field(default_factory=time.monotonic)
    notice: str | None = None
    """Shown once on the next page (what a save did)."""
    share_token: str | None = None
    """The token of its read-only share link, while it is shared (`shared_page`)."""

    @property
    def play(self) -> PlaySession:
        """The first lane's game (the only one, unless side by side)."""
        return self.lanes[0].play

    @property
    def model_spec(self) -> str:
        """The first lane's model."""
        return self.lanes[0].model_spec

    @property
    def user_turns(self) -> int:
        """How many turns the visitor has sent (a lane whose rule broke may have fewer)."""
        return max(lane.user_turns for lane in self.lanes)

    def playing(self) -> list[Lane]:
        """The lanes the next user turn goes to: in step, and no rule broken yet."""
        return [
            lane
            for lane in self.lanes
            if lane.play.verdict.passed and lane.user_turns == self.user_turns
        ]

    def state(self) -> str:
        """Whether every lane passes in the game's mode ("passed"), or one broke ("failed")."""
        return "passed" if all(lane.play.verdict.passed for lane in self.lanes) else "failed"

    def record(self) -> ConversationRecord:
        """The conversation as the playground database keeps it."""
        play = self.play
        config = play.session.config
        return ConversationRecord(
            id=self.id,
            visitor=self.visitor,
            scenario=play.scenario.name,
            params=play.scenario.params.model_dump(mode="json"),
            source=self.params_source,
            protocol=play.protocol,
            temperature=config.temperature,
            max_tokens=config.max_tokens,
            lanes=tuple(
                LaneRecord.of(lane.model_spec, lane.play.turns, lane.draws) for lane in self.lanes
            ),
            created_s=self.created_s,
        )


class NoConversation(Exception):
    """The id names no conversation of this visitor (a 404 page says so)."""


class GameUnavailable(Exception):
    """A stored game this server cannot go on with (its model is no longer offered, say)."""


def new_token() -> str:
    """A random, unguessable id (128 bits)."""
    return secrets.token_urlsafe(16)


def new_share_token() -> str:
    """A share link's token (256 bits): it opens a page to whoever holds it, without a cookie."""
    return secrets.token_urlsafe(32)


class Playground:
    """Every visitor's conversations and the models they use, for one app."""

    def __init__(self, config: PlaygroundConfig, store: Path) -> None:
        self.config = config
        self._cache = StoredReplies(store)
        self._generate = GenerateConfig(max_tokens=play_reply_limit(config.max_tokens))
        self._conversations: dict[str, Conversation] = {}
        # Checked now: a foreign or corrupt file stops the server before it serves anything.
        self.store = ConversationStore(config.save_dir / DATABASE_NAME)
        self.limits = VisitorLimits(config.quotas)
        self.models = ModelPool(
            config.model,
            BackendOptions(args=config.model_args, base_url=config.base_url),
            config.any_model,
            config.allowed_models,
        )
        # Tests serve one app from several event loops (one per TestClient), so the shared
        # maps are guarded by a thread lock, held for dictionary work only.
        self._lock = threading.Lock()
        self._background: set[asyncio.Task[None]] = set()

    def hide_secrets(self, text: str, for_others: bool = False) -> str:
        """`text` as a page may show it: URL credentials, tokens and secret `-M` values hidden.

        `for_others` (a share link's page) cuts the server's paths as a remote server does,
        on a loopback server too.
        """
        for name, value in self.config.model_args.items():
            if value and is_secret_name(name):
                text = text.replace(value, REDACTED)
        if for_others or not self.config.show_paths:
            text = hide_paths(text, self.config.save_dir)
            if self.config.upstream is not None:  # replay commands and clone errors name it
                root = self.config.upstream.root
                text = text.replace(shlex.quote(root), root).replace(root, "PATH")
        return redact_text(text)

    @property
    def default_generation(self) -> GenerateConfig:
        """The generation settings of a game (or a replayed case) that sets none of its own."""
        return self._generate

    def generation_defaults(self) -> dict[str, float | int]:
        """The temperature and reply limit a game gets when its form leaves them empty."""
        return {
            "temperature": self._generate.temperature,
            "max_tokens": self._generate.max_tokens,
        }

    async def start(
        self, visitor: str, setup: GameSetup, source: str = "set by hand"
    ) -> Conversation:
        """Open a conversation: scenario instance, models, engine sessions, protocol.

        `source` says where hand-set parameters come from (a saved case's file and id).
        """
        scenario_type = scenario_class(setup.scenario)
        self.limits.check_new_conversation(visitor)
        if setup.params is not None:
            scenario = scenario_type.from_params(setup.params)
        else:
            seed = setup.seed if setup.seed is not None else secrets.randbelow(2**31)
            scenario, source = scenario_type.sample(random.Random(seed)), f"seed {seed}"
        protocol = Protocol(
            placement=setup.placement,
            reminders=setup.reminders,
            system_message=setup.system_message or None,
            mode=setup.mode,
            prompts=setup.prompts,
            upstream=self._upstream(setup.prompts),
        )
        update = {"temperature": setup.temperature, "max_tokens": setup.max_tokens}
        generate = self._generate.model_copy(
            update={name: value for name, value in update.items() if value is not None}
        )
        specs = [setup.model.strip() or self.config.model]
        if setup.model_b and setup.model_b.strip():
            specs.append(setup.model_b.strip())
        record = ConversationRecord(
            id=new_token(),
            visitor=visitor,
            scenario=scenario.name,
            params=scenario.params.model_dump(mode="json"),
            source=source,
            protocol=protocol,
            temperature=generate.temperature,
            max_tokens=generate.max_tokens,
            lanes=tuple(LaneRecord(model=spec) for spec in specs),
        )
        conversation = await self._build(record, scenario)
        await self.persist(conversation)
        return self._remember(conversation)

    async def _build(self, record: ConversationRecord, scenario: Scenario) -> Conversation:
        """A live conversation from its record: each lane's model, sessions and turns."""
        generate = self._generate.model_copy(
            update={"temperature": record.temperature, "max_tokens": record.max_tokens}
        )
        lanes = []
        for lane in record.lanes:
            model: Model = await self.models.get(lane.model)
            session = Session(model, generate, self._cache, record.id)
            play = PlaySession(scenario, session, record.protocol)
            play.restore(lane.played_turns())
            fresh = Session(model, generate, None, record.id)
            lanes.append(Lane(lane.model, play, fresh, lane.draws))
        return Conversation(
            record.id, record.visitor, lanes, record.source, created_s=record.created_s
        )

    def _remember(self, conversation: Conversation) -> Conversation:
        """Keep a conversation in memory; past the cap the least recently used is dropped."""
        with self._lock:
            if len(self._conversations) >= MAX_CONVERSATIONS:
                oldest = min(self._conversations.values(), key=lambda c: c.last_used_s)
                del self._conversations[oldest.id]
            return self._conversations.setdefault(conversation.id, conversation)

    async def persist(self, conversation: Conversation) -> None:
        """Write the conversation's current state to the playground database."""
        record = conversation.record()
        await asyncio.to_thread(
            self.store.save, record, conversation.user_turns, conversation.state()
        )

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

    async def find(self, conversation_id: str, visitor: str | None) -> Conversation:
        """The visitor's conversation with this id (from memory, else the database).

        NoConversation for an id of another visitor's or none at all.
        """
        with self._lock:
            found = self._conversations.get(conversation_id)
        if found is None and visitor is not None:
            record = await asyncio.to_thread(self.store.load, conversation_id)
            if record is not None and secrets.compare_digest(record.visitor, visitor):
                try:
                    rebuilt = await self._rebuild(record)
                except ConfigError as exc:
                    raise GameUnavailable(
                        self.hide_secrets(f"this game cannot go on on this server: {exc}")
                    ) from None
                found = self._remember(rebuilt)
        if found is None or visitor is None or not secrets.compare_digest(found.visitor, visitor):
            raise NoConversation(
                "no such conversation: a conversation answers only the browser that started it"
            )
        found.last_used_s = time.monotonic()
        return found

    async def _rebuild(self, record: ConversationRecord) -> Conversation:
        """A stored conversation, live again: upstream wording is read from this server's clone."""
        scenario = scenario_class(record.scenario).from_params(record.params)
        protocol = record.protocol
        if protocol.prompts == "upstream":
            protocol = protocol.model_copy(update={"upstream": self._upstream("upstream")})
        rebuilt = await self._build(record.model_copy(update={"protocol": protocol}), scenario)
        rebuilt.share_token = await asyncio.to_thread(self.store.share_token_of, record.id)
        return rebuilt

    def conversations_of(self, visitor: str | None) -> list[ConversationSummary]:
        """The visitor's conversations (stored ones too), the most recently changed first."""
        if visitor is None:
            return []
        return self.store.list_of(visitor, MAX_LISTED)

    def count_of(self, visitor: str | None) -> int:
        """How many conversations the visitor has in all (more than are listed, past MAX_LISTED)."""
        return 0 if visitor is None else self.store.count_of(visitor)

    def run_in_background(self, work: Coroutine[None, None, None]) -> "asyncio.Task[None]":
        """Start `work` on the running loop; the app cancels it when it stops."""
        task = asyncio.get_running_loop().create_task(work)
        with self._lock:
            self._background.add(task)
        task.add_done_callback(self._forget_task)
        return task

    def _forget_task(self, task: "asyncio.Task[None]") -> None:
        with self._lock:
            self._background.discard(task)

    async def aclose(self) -> None:
        """Cancel background work, then close every model (the app is shutting down).

        In that order: a job cancelled after its model closed would fail on a closed model.
        """
        with self._lock:
            tasks = list(self._background)
        here = asyncio.get_running_loop()
        for task in tasks:
            if task.get_loop() is here:
                task.cancel()
            elif not task.get_loop().is_closed():  # tests serve one app from several loops
                task.get_loop().call_soon_threadsafe(task.cancel)
        await asyncio.gather(*(t for t in tasks if t.get_loop() is here), return_exceptions=True)
        await self.models.aclose()
