"""The models the playground's visitors talk to: built once per spec, shared, and limited.

A local model holds its weights in memory, so specs are loaded on first use, shared by every
conversation naming them, and capped in number. Which specs a visitor may name is decided
here too: the server's own model always; any other only where the server allows it (a spec
can load any local file as a model or spend the API keys in the server's environment).
"""

import asyncio
import threading

from rulebench.core.errors import ConfigError
from rulebench.models.base import BackendOptions, Model
from rulebench.models.registry import create_model

MAX_MODELS = 4
"""Distinct model specs loaded at once (a local model holds its weights in memory)."""


class ModelPool:
    """Loaded models by spec, for one app."""

    def __init__(
        self,
        default_spec: str,
        default_options: BackendOptions,
        any_model: bool,
    ) -> None:
        self.default_spec = default_spec
        self._default_options = default_options
        self._any_model = any_model
        self._models: dict[str, Model] = {}
        # Tests serve one app from several event loops (one per TestClient), so the map is
        # guarded by a thread lock, held for dictionary work only.
        self._lock = threading.Lock()

    async def get(self, spec: str) -> Model:
        """The model for `spec`, loaded on first use; ConfigError for a spec not allowed."""
        with self._lock:
            found = self._models.get(spec)
            loaded = list(self._models)
        if found is not None:
            return found
        if spec == self.default_spec:
            options = self._default_options
        elif not self._any_model:
            raise ConfigError(
                f"this server plays {self.default_spec} only (it is reachable from other "
                "machines, so visitors cannot name other models)"
            )
        else:
            options = BackendOptions()
        if len(loaded) >= MAX_MODELS:
            raise ConfigError(
                f"{MAX_MODELS} models are in use already ({', '.join(loaded)}): pick one of "
                "them, or restart the server"
            )
        # Building a local model loads its weights: off the event loop.
        model = await asyncio.to_thread(create_model, spec, options)
        with self._lock:
            kept = self._models.setdefault(spec, model)
        if kept is not model:  # another visitor loaded the same spec meanwhile
            await model.aclose()
        return kept

    async def aclose(self) -> None:
        """Close every model (the app is shutting down)."""
        with self._lock:
            models, self._models = list(self._models.values()), {}
        for model in models:
            await model.aclose()
