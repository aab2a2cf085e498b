"""Response cache: a reply is keyed by everything that determines it, and misses can be explained.

Key parts: backend, model identity (name plus file hash, revision or server), the full rendered
messages, every generation parameter (seed included). Entries live in the store's `cache` table.
"""

import functools
import hashlib
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple, Protocol

from pydantic import BaseModel, ConfigDict, JsonValue

from rulebench.core.errors import StoreError
from rulebench.core.items import CANONICAL_JSON
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.engine.store.connection import connect_readonly
from rulebench.engine.store.records import utc_now
from rulebench.engine.store.writer import CacheRow, StoreWriter
from rulebench.models.base import ModelInfo

# How many recent entries of the same model `explain` compares against: enough to find a near
# neighbour in practice, bounded so explaining stays fast on a large cache.
EXPLAIN_SCAN_LIMIT = 5000


@functools.lru_cache(maxsize=256)
def _config_parts(config: GenerateConfig) -> dict[str, JsonValue]:
    # A run uses one or two configs for thousands of requests: dump each once.
    return config.cache_parts()


@functools.lru_cache(maxsize=256)
def _key_frame(provider: str, identity: str, config: GenerateConfig) -> tuple[str, str]:
    # The canonical JSON of the parts around "messages", in sorted key order: backend, config,
    # messages, model, repeat.
    head = (
        f'{{"backend":{CANONICAL_JSON(provider)},"config":{CANONICAL_JSON(_config_parts(config))}'
    )
    return f'{head},"messages":', f',"model":{CANONICAL_JSON(identity)}}}'


def cache_key_parts(
    info: ModelInfo, messages: Sequence[Message], config: GenerateConfig, repeat: int = 0
) -> dict[str, JsonValue]:
    """Everything a reply depends on, as JSON; a repeat after the first is its own draw."""
    parts: dict[str, JsonValue] = {
        "backend": info.provider,
        "model": info.identity,
        "messages": [[m.role, m.content] for m in messages],
        "config": _config_parts(config),
    }
    if repeat:  # absent for the first, so keys made before repeats existed still match
        parts["repeat"] = repeat
    return parts


class CacheKey(NamedTuple):
    """A request's cache key, with the canonical JSON of its parts (kept to explain misses)."""

    key: str
    parts_json: str
    model: str


def make_cache_key(
    info: ModelInfo, messages: Sequence[Message], config: GenerateConfig, repeat: int = 0
) -> CacheKey:
    """Hash the canonical JSON (sorted keys, no spaces) of everything a reply depends on.

    The text is exactly the canonical JSON of `cache_key_parts`; only the messages are
    encoded per request, between the other parts encoded once per model and config.
    """
    head, tail = _key_frame(info.provider, info.identity, config)
    encoded = CANONICAL_JSON([[m.role, m.content] for m in messages])
    if repeat:
        tail = f'{tail[:-1]},"repeat":{CANONICAL_JSON(repeat)}}}'
    canonical = f"{head}{encoded}{tail}"
    digest = hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
    return CacheKey(digest, canonical, info.identity)


PER_REQUEST_FIELDS: set[str] = {"attempts", "retried_usage"}
"""How the request that got a reply went, not the reply: a cached reply is sent no request
(`Session` counts none for it), so these stay out of the entry, as before they existed."""


def _short(key: str) -> int:
    return int(key[:16], 16)


class ReplyCache(Protocol):
    """What a session asks of a cache: a stored reply for a key, and keeping a fresh one."""

    def get(self, key: CacheKey) -> Completion | None:
        """The cached completion for a key, marked as cached, or None."""
        ...

    def put(self, key: CacheKey, completion: Completion, item_id: str) -> None:
        """Remember a fresh completion (or not, for a read-only cache)."""
        ...


def _lookup(reader: sqlite3.Connection, key: CacheKey) -> Completion | None:
    row = reader.execute("SELECT completion FROM cache WHERE key = ?", (key.key,)).fetchone()
    if row is None:
        return None
    return Completion.model_validate_json(row[0]).model_copy(update={"cached": True})


class ResponseCache:
    """Looks replies up in the store and queues new ones for the store's writer.

    The keys cached for the run's model are loaded once as 64-bit prefixes (about 80 bytes per
    entry), so a miss costs a set lookup instead of a SQLite query. That matters: while the
    writer thread commits, a query on the event loop waits for the GIL, which makes each lookup
    many times slower than uncontended (docs/performance.md).
    """

    def __init__(
        self, reader: sqlite3.Connection, writer: StoreWriter, run_id: str, model: str
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._run_id = run_id
        rows = reader.execute("SELECT key FROM cache WHERE model = ?", (model,))
        self._known = {_short(key) for (key,) in rows}

    def get(self, key: CacheKey) -> Completion | None:
        """The cached completion for a key, marked as cached, or None."""
        if _short(key.key) not in self._known:
            return None
        # None here: a 64-bit prefix collision, or written but not yet committed.
        return _lookup(self._reader, key)

    def put(self, key: CacheKey, completion: Completion, item_id: str) -> None:
        """Remember a fresh completion (committed by the store writer)."""
        self._known.add(_short(key.key))
        self._writer.put_cache(
            CacheRow(
                key=key.key,
                model=key.model,
                parts_json=key.parts_json,
                completion_json=completion.model_dump_json(exclude=PER_REQUEST_FIELDS),
                run_id=self._run_id,
                item_id=item_id,
                created_at=utc_now(),
            )
        )


class StoredReplies:
    """The cache of a store opened read-only: replies it holds are used, new ones not kept.

    For the playground (`rulebench serve`), which writes nothing to the store. Each lookup
    opens its own read-only connection (about a millisecond): SQLite connections stay in the
    thread that made them, and requests are served from more than one thread.
    """

    def __init__(self, path: Path) -> None:
        self._path = path

    def get(self, key: CacheKey) -> Completion | None:
        """The completion the store holds for a key, marked as cached, or None."""
        try:
            reader = connect_readonly(self._path)
            try:
                return _lookup(reader, key)
            finally:
                reader.close()
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read the results store {self._path}: {exc}") from None

    def put(self, key: CacheKey, completion: Completion, item_id: str) -> None:
        """Keep nothing: the store is read-only here."""


class PartDifference(BaseModel):
    """One key part that differs between a request and its nearest cached neighbour."""

    model_config = ConfigDict(frozen=True)

    part: str
    request: str
    cached: str


NO_MISSES = "No misses: every request of this run hit the cache (or it ran with --no-cache)."
"""What explaining a run whose requests all hit the cache says (`explain_miss` is None)."""
DIFFERENCE_COLUMNS = ("key part", "this request", "nearest cached")
"""The columns of `MissExplanation.rows`."""


class MissExplanation(BaseModel):
    """Why a request missed: its nearest cached entry and the key parts that differ from it."""

    model_config = ConfigDict(frozen=True)

    item_id: str | None
    nearest_run_id: str | None
    """The run that wrote the nearest entry; None when the cache held nothing comparable."""
    differences: tuple[PartDifference, ...]

    @property
    def headline(self) -> str:
        """What the explanation says first: the nearest entry's run, or that there was none."""
        if self.nearest_run_id is None:
            return f"Item {self.item_id} missed: the cache held nothing to compare with."
        return f"Item {self.item_id}: the nearest cached entry is from run {self.nearest_run_id}"

    def rows(self) -> list[tuple[str, str, str]]:
        """The differences as rows of `DIFFERENCE_COLUMNS`."""
        return [(d.part, d.request, d.cached) for d in self.differences]


def describe_difference(name: str, mine: JsonValue, theirs: JsonValue) -> list[PartDifference]:
    """Say how one key part differs, in a line or two a person can read."""
    if name == "config" and isinstance(mine, dict) and isinstance(theirs, dict):
        keys = sorted(set(mine) | set(theirs))
        return [
            PartDifference(part=f"config.{k}", request=str(mine.get(k)), cached=str(theirs.get(k)))
            for k in keys
            if mine.get(k) != theirs.get(k)
        ]
    if name == "messages" and isinstance(mine, list) and isinstance(theirs, list):
        for index, (a, b) in enumerate(zip(mine, theirs, strict=False)):
            if a != b:
                return [
                    PartDifference(
                        part=f"messages[{index}]", request=str(a)[:200], cached=str(b)[:200]
                    )
                ]
        return [
            PartDifference(
                part="messages", request=f"{len(mine)} messages", cached=f"{len(theirs)} messages"
            )
        ]
    return [PartDifference(part=name, request=str(mine), cached=str(theirs))]


def count_differences(mine: dict[str, JsonValue], theirs: dict[str, JsonValue]) -> int:
    """How many top-level key parts differ (the distance used to pick the nearest entry)."""
    return sum(mine.get(k) != theirs.get(k) for k in set(mine) | set(theirs))


def explain_miss(
    reader: sqlite3.Connection, run_id: str, item_id: str | None
) -> MissExplanation | None:
    """Explain why a run's request missed the cache; None if every request of it hit.

    A miss is a cache entry the run wrote itself (it writes only what it had to compute); it is
    compared with the nearest entry written by any other run.
    """
    query = "SELECT item_id, parts FROM cache WHERE run_id = ?"
    params: tuple[str, ...] = (run_id,)
    if item_id is not None:
        query, params = query + " AND item_id = ?", (run_id, item_id)
    row = reader.execute(query + " ORDER BY rowid LIMIT 1", params).fetchone()
    if row is None:
        return None
    missed_item, parts = row[0], json.loads(row[1])
    candidates = (
        reader.execute(
            "SELECT run_id, parts FROM cache WHERE run_id IS NOT ? AND model = ? "
            "ORDER BY created_at DESC LIMIT ?",
            (run_id, parts["model"], EXPLAIN_SCAN_LIMIT),
        ).fetchall()
        or reader.execute(
            "SELECT run_id, parts FROM cache WHERE run_id IS NOT ? "
            "ORDER BY created_at DESC LIMIT ?",
            (run_id, EXPLAIN_SCAN_LIMIT),
        ).fetchall()
    )
    if not candidates:
        return MissExplanation(item_id=missed_item, nearest_run_id=None, differences=())
    scored = [(count_differences(parts, json.loads(p)), r, json.loads(p)) for r, p in candidates]
    _, nearest_run, nearest = min(scored, key=lambda entry: entry[0])
    differences = [
        difference
        for name in sorted(set(parts) | set(nearest))
        if parts.get(name) != nearest.get(name)
        for difference in describe_difference(name, parts.get(name), nearest.get(name))
    ]
    return MissExplanation(
        item_id=missed_item, nearest_run_id=nearest_run, differences=tuple(differences)
    )
