"""The playground's conversations on disk: `playground.sqlite` in the save folder.

Every change to a conversation (start, send, undo, edit, regenerate) rewrites its row, so a
restarted server shows each visitor its conversations and a game goes on where it stopped;
the server's memory is only a cache of these rows. The results store is never written: this
file sits in the save folder, the one place the playground writes to. A row holds how the
game is played (scenario parameters, protocol, temperature, reply limit, models) and each
lane's turns; verdicts are recomputed from the turns, never stored. A shared conversation
has a row in `shares`: its unguessable token and the page as it was at share time (text
already cleared of secrets), so a share link reads one row and rebuilds no game.
"""

import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from rulebench.core.errors import ConfigError, StoreError
from rulebench.core.messages import Message
from rulebench.scenarios.protocol import Protocol

DATABASE_NAME = "playground.sqlite"
APPLICATION_ID = 0x52425047
"""`PRAGMA application_id` of a playground database ("RBPG"): tells it from any other SQLite."""
SCHEMA_VERSION = 2
"""2 added `shares`; a version-1 file gets the table on its first share."""
BUSY_TIMEOUT_S = 10.0
_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    visitor TEXT NOT NULL,
    created_s REAL NOT NULL,
    updated_s REAL NOT NULL,
    scenario TEXT NOT NULL,
    models TEXT NOT NULL,
    user_turns INTEGER NOT NULL,
    state TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS conversations_by_visitor ON conversations (visitor, updated_s);
"""
_SHARES_SCHEMA = """
CREATE TABLE IF NOT EXISTS shares (
    token TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL UNIQUE,
    visitor TEXT NOT NULL,
    shared_s REAL NOT NULL,
    page TEXT NOT NULL
);
"""


class LaneRecord(BaseModel):
    """One model's side of a conversation: its spec and the turns it has seen and given."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    turns: tuple[Message, ...] = ()
    draws: int = Field(default=0, ge=0)
    """Replies regenerated so far: the next draw's seed follows, even after a restart."""
    thinking: tuple[str | None, ...] = ()
    """Each turn's thinking, by position: a `Message` leaves it out of its JSON. Records
    stored before the playground kept thinking have none."""

    @classmethod
    def of(cls, model: str, turns: Sequence[Message], draws: int) -> "LaneRecord":
        """The record of a lane's turns, their thinking kept beside them."""
        thinking = tuple(m.reasoning for m in turns)
        kept = thinking if any(thinking) else ()
        return cls(model=model, turns=tuple(turns), draws=draws, thinking=kept)

    def played_turns(self) -> list[Message]:
        """The turns as played: each reply with its thinking back."""
        thinking = [*self.thinking, *[None] * (len(self.turns) - len(self.thinking))]
        return [
            m.model_copy(update={"reasoning": t}) if t else m
            for m, t in zip(self.turns, thinking, strict=False)
        ]


class ConversationRecord(BaseModel):
    """A conversation as stored: everything needed to rebuild it and play on."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    visitor: str
    scenario: str
    params: dict[str, JsonValue]
    """The scenario's parameters (drawn by seed or set by hand), as a case stores them."""
    source: str
    """How the parameters were chosen, e.g. "seed 17"."""
    protocol: Protocol
    temperature: float = Field(ge=0.0)
    max_tokens: int = Field(ge=1)
    lanes: tuple[LaneRecord, ...] = Field(min_length=1, max_length=2)
    """One lane per model; the same user turns go to each (a lane whose rule broke stops)."""
    created_s: float = Field(default_factory=time.time)


class ConversationSummary(BaseModel):
    """What the visitor's list of conversations shows, read without rebuilding any game."""

    model_config = ConfigDict(frozen=True)

    id: str
    scenario: str
    models: str
    user_turns: int
    state: str


class ConversationStore:
    """The playground database at `path`: checked on opening, created on the first write."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if path.exists():
            self._check()

    def _check(self) -> None:
        """A ConfigError naming the file when it is not a playground database."""
        try:
            with self._connection() as db:
                found = db.execute("PRAGMA application_id").fetchone()[0]
                tables = db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
        except StoreError as exc:
            raise ConfigError(f"{self.path}: not a playground database ({exc})") from None
        if tables and found != APPLICATION_ID:
            raise ConfigError(
                f"{self.path}: not a playground database (it holds other tables): move it "
                "away, or give the server another save folder"
            )

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """A short-lived connection: requests come from several threads."""
        try:
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {self.path}: {exc}") from None
        try:
            yield db
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: {exc}") from None
        finally:
            db.close()

    def save(self, record: ConversationRecord, user_turns: int, state: str) -> None:
        """Write the conversation's row (a new one, or over its last version)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connection() as db:
            _create(db)
            db.execute(
                "INSERT OR REPLACE INTO conversations VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.id,
                    record.visitor,
                    record.created_s,
                    time.time(),
                    record.scenario,
                    " | ".join(lane.model for lane in record.lanes),
                    user_turns,
                    state,
                    record.model_dump_json(),
                ),
            )

    def load(self, conversation_id: str) -> ConversationRecord | None:
        """The stored conversation with this id, or None."""
        if not self.path.exists():
            return None
        with self._connection() as db:
            row = db.execute(
                "SELECT record FROM conversations WHERE id = ?", (conversation_id,)
            ).fetchone()
        if row is None:
            return None
        try:
            return ConversationRecord.model_validate_json(row[0])
        except (ValidationError, ConfigError) as exc:
            raise StoreError(
                f"{self.path}: conversation {conversation_id}: unreadable ({exc})"
            ) from None

    def count_of(self, visitor: str) -> int:
        """How many conversations the visitor has (the list shows the most recent only)."""
        if not self.path.exists():
            return 0
        with self._connection() as db:
            row = db.execute(
                "SELECT count(*) FROM conversations WHERE visitor = ?", (visitor,)
            ).fetchone()
        return int(row[0])

    def list_of(self, visitor: str, limit: int) -> list[ConversationSummary]:
        """The visitor's conversations, the most recently changed first."""
        if not self.path.exists():
            return []
        with self._connection() as db:
            rows = db.execute(
                "SELECT id, scenario, models, user_turns, state FROM conversations "
                "WHERE visitor = ? ORDER BY updated_s DESC LIMIT ?",
                (visitor, limit),
            ).fetchall()
        return [
            ConversationSummary(id=r[0], scenario=r[1], models=r[2], user_turns=r[3], state=r[4])
            for r in rows
        ]

    def share(self, token: str, conversation_id: str, visitor: str, page: str) -> str:
        """Keep `page` as the conversation's shared copy; the link's token (an earlier one kept).

        Sharing again refreshes the copy under the same link, so a link already handed out
        shows the latest shared state.
        """
        with self._connection() as db:
            _create(db)
            db.execute(
                "INSERT INTO shares VALUES (?, ?, ?, ?, ?) ON CONFLICT (conversation_id) "
                "DO UPDATE SET shared_s = excluded.shared_s, page = excluded.page",
                (token, conversation_id, visitor, time.time(), page),
            )
            row = db.execute(
                "SELECT token FROM shares WHERE conversation_id = ?", (conversation_id,)
            ).fetchone()
        return str(row[0])

    def share_token_of(self, conversation_id: str) -> str | None:
        """The token of the conversation's share link, or None when it is not shared."""
        row = self._share_row("SELECT token FROM shares WHERE conversation_id = ?", conversation_id)
        return None if row is None else str(row[0])

    def shared_page(self, token: str) -> str | None:
        """The shared copy (JSON) the token opens, or None for a token that opens nothing."""
        row = self._share_row("SELECT page FROM shares WHERE token = ?", token)
        return None if row is None else str(row[0])

    def stop_sharing(self, conversation_id: str) -> None:
        """Forget the conversation's share link: its token opens nothing from now on."""
        if not self.path.exists():
            return
        with self._connection() as db:
            _create(db)
            db.execute("DELETE FROM shares WHERE conversation_id = ?", (conversation_id,))

    def _share_row(self, query: str, key: str) -> tuple[object, ...] | None:
        if not self.path.exists():
            return None
        with self._connection() as db:
            if not _has_shares(db):  # a version-1 file, never shared from
                return None
            row: tuple[object, ...] | None = db.execute(query, (key,)).fetchone()
        return row


def _create(db: sqlite3.Connection) -> None:
    """The playground's tables, made where missing (a new file, or one from before `shares`)."""
    if db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
        db.executescript(_SCHEMA)
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    if not _has_shares(db):
        db.executescript(_SHARES_SCHEMA)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _has_shares(db: sqlite3.Connection) -> bool:
    found = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'shares'")
    return found.fetchone() is not None
