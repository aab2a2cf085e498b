"""What the llamacpp engine is asked for: its settings and the requests queued on it.

Apart from the engine so that its lanes can use them too; llamacpp_engine re-exports them.
"""

import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from rulebench.core.messages import GenerateConfig
from rulebench.models.local_chat import Generated

ResultT = TypeVar("ResultT")


class LlamaSettings(BaseModel):
    """What a loaded Llama depends on; engines are shared per distinct value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: Path
    n_ctx: int
    """Tokens one request may hold, prompt plus reply (each sequence gets that much KV)."""
    n_threads: int | None
    """Threads of each lane; None: chosen with the layout (llamacpp_layout)."""
    n_threads_batch: int | None
    n_batch: int
    n_seq_max: int | None = Field(default=None, ge=1)
    """Sequences each lane decodes together; None sizes them from a KV-memory budget."""
    lanes: int | None = Field(default=None, ge=1)
    """llama.cpp contexts run side by side; None: chosen with the layout (llamacpp_layout)."""


_stats_lock = threading.Lock()


@dataclass
class EvalStats:
    """Token counters of one model's requests; lanes add to them under a lock."""

    requests: int = 0
    prompt_tokens: int = 0
    evaluated_prompt_tokens: int = 0
    """Prompt tokens run through the model; prompt_tokens minus this came from the KV cache."""

    def add(self, prompt_tokens: int, evaluated: int) -> None:
        """Count one request of `prompt_tokens`, of which `evaluated` were run."""
        with _stats_lock:
            self.requests += 1
            self.prompt_tokens += prompt_tokens
            self.evaluated_prompt_tokens += evaluated


@dataclass
class Request(Generic[ResultT]):
    """A queued call: the rendered prompt, its tokens once admitted, the answer slot."""

    prompt: str
    prefix_reuse: bool
    stats: EvalStats
    future: Future[ResultT] = field(default_factory=Future)
    tokens: list[int] = field(default_factory=list)


@dataclass
class GenerationRequest(Request[Generated]):
    """Generate a reply to the prompt."""

    config: GenerateConfig = field(default_factory=GenerateConfig)


@dataclass
class ScoringRequest(Request[list[float]]):
    """Score candidate replies to the prompt by log-likelihood."""

    choices: tuple[str, ...] = ()
    choice_tokens: list[list[int]] = field(default_factory=list)
