"""The models the playground's visitors talk to: built once per spec, shared, and limited.

A local model holds its weights in memory, so specs are loaded on first use, shared by every
conversation naming them, and capped in number: past the cap the least recently used model
that no call is using is closed, and loads again when a conversation next asks it. Which
specs a visitor may name is decided here too, before a spec is parsed or any path looked at:
the server's own model and the operator's allowed list always; any other only where the
server allows any (a spec can load any local file as a model or spend the API keys in the
server's environment).
"""

import asyncio
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

from rulebench.core.errors import ConfigError
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.models.base import BackendOptions, Model, ModelInfo
from rulebench.models.registry import create_model

MAX_MODELS = 4
"""Distinct model specs loaded at once (a local model holds its weights in memory)."""


@dataclass
class _Loaded:
    model: Model
    last_used_s: float = field(default_factory=time.monotonic)
    calls_in_flight: int = 0


class PooledModel:
    """A pool's model as a conversation holds it: loaded again if the pool closed it meanwhile."""

    def __init__(self, pool: "ModelPool", spec: str, info: ModelInfo) -> None:
        self._pool = pool
        self.spec = spec
        self._info = info

    @property
    def info(self) -> ModelInfo:
        """Provider, name and identity of the model (as first loaded)."""
        return self._info

    async def generate(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
        """The reply of the pool's model, kept loaded while it answers."""
        loaded = await self._pool.acquire(self.spec)
        try:
            return await loaded.model.generate(messages, config)
        finally:
            self._pool.release(loaded)

    async def aclose(self) -> None:
        """Nothing: the pool closes its models (when evicted, or when the app stops)."""


class ModelPool:
    """Loaded models by spec, for one app."""

    def __init__(
        self,
        default_spec: str,
        default_options: BackendOptions,
        any_model: bool,
        allowed: Sequence[str] = (),
    ) -> None:
        self.default_spec = default_spec
        self._default_options = default_options
        self._any_model = any_model
        self.allowed = (default_spec, *(spec for spec in allowed if spec != default_spec))
        """The specs a visitor may name when any_model is off, the server's own first."""
        self._models: dict[str, _Loaded] = {}
        self._loading: dict[str, Future[None]] = {}
        """Specs being built now, each holding a slot; waiters await the future."""
        # Tests serve one app from several event loops (one per TestClient), so the map is
        # guarded by a thread lock, held for dictionary work only.
        self._lock = threading.Lock()

    def check_allowed(self, spec: str) -> None:
        """ConfigError unless visitors may name `spec` (checked before anything is built)."""
        if self._any_model or spec in self.allowed:
            return
        raise ConfigError(
            f"this server plays {', '.join(self.allowed)} only (it is reachable from other "
            "machines, so visitors may name the models its operator allowed, no other)"
        )

    async def get(self, spec: str) -> PooledModel:
        """The model for `spec`, loaded on first use; ConfigError for a spec not allowed."""
        self.check_allowed(spec)
        loaded = await self.acquire(spec)
        self.release(loaded)
        return PooledModel(self, spec, loaded.model.info)

    async def acquire(self, spec: str) -> _Loaded:
        """The loaded model for `spec`, marked busy (pair with `release`); loads it if needed.

        One load per spec: a second visitor asking while it loads waits for that load. A
        loading spec holds its slot, so loads at once never pass MAX_MODELS.
        """
        while True:
            with self._lock:
                found = self._models.get(spec)
                if found is not None:
                    found.calls_in_flight += 1
                    found.last_used_s = time.monotonic()
                    return found
                pending = self._loading.get(spec)
                if pending is None:
                    evicted = self._reserve(spec)
                    pending = self._loading[spec] = Future()
                    break
            # A concurrent future: the loader may run on another event loop (another client).
            await asyncio.wrap_future(pending)
        for entry in evicted:
            await entry.model.aclose()
        return await self._load(spec, pending)

    async def _load(self, spec: str, pending: "Future[None]") -> _Loaded:
        """Build `spec`'s model in its reserved slot; waiters learn how it went."""
        options = self._default_options if spec == self.default_spec else BackendOptions()
        try:
            # Building a local model loads its weights: off the event loop.
            model = await asyncio.to_thread(create_model, spec, options)
        except BaseException as exc:
            with self._lock:
                del self._loading[spec]
            stopped = ConfigError(f"{spec}: loading was interrupted, try again")
            pending.set_exception(exc if isinstance(exc, Exception) else stopped)
            raise
        with self._lock:
            del self._loading[spec]
            loaded = self._models[spec] = _Loaded(model, calls_in_flight=1)
        pending.set_result(None)
        return loaded

    def release(self, loaded: _Loaded) -> None:
        """The call that acquired `loaded` is done."""
        with self._lock:
            loaded.calls_in_flight -= 1
            loaded.last_used_s = time.monotonic()

    def _reserve(self, spec: str) -> list[_Loaded]:
        """Free a slot for `spec` (lock held): the least recently used idle models leave.

        Returns them, to be closed once the lock is let go; ConfigError if every slot is busy.
        """
        evicted: list[_Loaded] = []
        while len(self._models) + len(self._loading) >= MAX_MODELS:
            idle = [(s, m) for s, m in self._models.items() if m.calls_in_flight == 0]
            if not idle:
                busy = [*self._models, *self._loading]
                raise ConfigError(
                    f"{MAX_MODELS} models are answering already or loading ({', '.join(busy)})"
                    f": {spec} cannot load now, try again in a moment"
                )
            name, _ = min(idle, key=lambda pair: pair[1].last_used_s)
            evicted.append(self._models.pop(name))
        return evicted

    def loaded_specs(self) -> list[str]:
        """The specs loaded now, the most recently used first."""
        with self._lock:
            pairs = sorted(self._models.items(), key=lambda p: p[1].last_used_s, reverse=True)
        return [spec for spec, _ in pairs]

    async def aclose(self) -> None:
        """Close every model (the app is shutting down)."""
        with self._lock:
            loaded, self._models = list(self._models.values()), {}
        for entry in loaded:
            await entry.model.aclose()
