"""One long-lived llama.cpp model per process and file, driven by one worker thread.

A `llama_cpp.Llama` is not thread-safe and takes seconds to load, so every LlamaCppModel built
with the same file and settings shares one engine: the Llama and the only thread that calls it.
Requests queue up; the worker next runs the one whose tokens share the longest prefix with the
KV cache, so questions under the same rules evaluate the rules once (measured on a 2-core
machine: 10 questions over a 1,500-token rule prefix, 7.4x faster).
"""

import logging
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

from rulebench.core.errors import ConfigError
from rulebench.core.messages import GenerateConfig
from rulebench.models import llamacpp_decode as decode
from rulebench.models.job_worker import JobWorker

logger = logging.getLogger(__name__)

ResultT = TypeVar("ResultT")


class LlamaSettings(BaseModel):
    """What a loaded Llama depends on; engines are shared per distinct value."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: Path
    n_ctx: int
    n_threads: int
    n_threads_batch: int
    n_batch: int


@dataclass
class EvalStats:
    """Token counters of one model's requests; written by the worker thread only."""

    requests: int = 0
    prompt_tokens: int = 0
    evaluated_prompt_tokens: int = 0
    """Prompt tokens run through the model; prompt_tokens minus this came from the KV cache."""


@dataclass
class Request(Generic[ResultT]):
    """A queued call: the rendered prompt, its tokens once the worker has them, the answer slot."""

    prompt: str
    prefix_reuse: bool
    stats: EvalStats
    future: Future[ResultT] = field(default_factory=Future)
    tokens: list[int] = field(default_factory=list)


@dataclass
class GenerationRequest(Request[decode.Generated]):
    """Generate a reply to the prompt."""

    config: GenerateConfig = field(default_factory=GenerateConfig)


@dataclass
class ScoringRequest(Request[list[float]]):
    """Score candidate replies to the prompt by log-likelihood."""

    choices: tuple[str, ...] = ()
    choice_tokens: list[list[int]] = field(default_factory=list)


class LlamaEngine(JobWorker[Request[Any]]):
    """A loaded Llama, its chat template and the worker thread that alone calls it."""

    label = "llamacpp"
    closed_message = "the engine was closed"

    def __init__(self, settings: LlamaSettings) -> None:
        self.settings = settings
        self.chat_template: str = ""
        self.bos_text = ""
        self.eos_text = ""
        self._llm: Any = None
        self._reusable = 0
        """Leading cached tokens that were evaluated as a prompt, hence safe to reuse."""
        self._formatter: Any = None
        super().__init__(f"llamacpp:{settings.path.name}")
        self.started.result()  # loading failed: raise its error here

    def render(self, messages: list[dict[str, str]]) -> str:
        """Render messages with the model's own chat template, ready for the assistant's turn."""
        if self._formatter is None:
            raise ConfigError(f"llamacpp: {self.settings.path} has no chat template")
        prompt: str = self._formatter(messages=messages).prompt
        return prompt

    def on_start(self) -> None:
        """Load the model in the worker thread, the only one that will call it."""
        try:
            self._load()
        except BaseException:
            if self._llm is not None:
                self._llm.close()
            raise

    def on_stop(self) -> None:
        """Free the model (on its own thread)."""
        self._llm.close()

    def _load(self) -> None:
        import llama_cpp
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        settings = self.settings
        try:
            self._llm = llama_cpp.Llama(
                model_path=str(settings.path), n_ctx=settings.n_ctx, n_batch=settings.n_batch,
                n_ubatch=settings.n_batch, n_threads=settings.n_threads,
                n_threads_batch=settings.n_threads_batch, logits_all=False, verbose=False,
            )  # fmt: skip
        except (ValueError, RuntimeError) as exc:
            raise ConfigError(f"llamacpp: cannot load {settings.path}: {exc}") from None
        # A base model's GGUF has none: LlamaCppModel then prompts with a transcript.
        template = self._llm.metadata.get("tokenizer.chat_template") or ""
        self.chat_template = template
        self.bos_text = self._token_text(self._llm.token_bos())
        self.eos_text = self._token_text(self._llm.token_eos())
        # The same Jinja2 sandbox and globals (raise_exception, strftime_now) llama.cpp's own
        # chat handler uses; compiled once, rendering is thread-safe.
        if template:
            self._formatter = Jinja2ChatFormatter(template, self.eos_text, self.bos_text)

    def _token_text(self, token: int) -> str:
        if token < 0:
            return ""
        text: bytes = self._llm.detokenize([token], special=True)
        return text.decode("utf-8", errors="replace")

    def admit(self, request: Request[Any]) -> None:
        """Tokenize an arrived request (and a scoring request's choices)."""
        request.tokens = decode.tokenize_prompt(self._llm, request.prompt, self.bos_text)
        if isinstance(request, ScoringRequest):
            request.choice_tokens = decode.split_continuations(
                self._llm, request.prompt, self.bos_text, request.choices
            )

    def pick(self, waiting: list[Request[Any]]) -> list[Request[Any]]:
        """The request sharing the longest prefix with the KV cache; the oldest among equals.

        A request can wait behind others that keep sharing the cache; the runner's bounded
        concurrency keeps that line finite.
        """
        cached = decode.cached_tokens(self._llm, self._reusable)
        shared = [
            decode.common_prefix_length(cached, r.tokens) if r.prefix_reuse else 0 for r in waiting
        ]
        return [waiting[shared.index(max(shared))]]

    def run(self, requests: list[Request[Any]]) -> None:
        """Run the picked request; a failure resets the KV state for the next one."""
        for request in requests:
            try:
                result = self._execute(request)
            except Exception as exc:
                # The KV state may be half-written; the next request starts from scratch.
                self._llm.reset()
                self._reusable = 0
                request.future.set_exception(self.as_model_error(exc))
            else:
                request.future.set_result(result)

    def _execute(self, request: Request[Any]) -> decode.Generated | list[float]:
        keep = decode.rewind_to_prefix(
            self._llm, request.tokens, self._reusable, request.prefix_reuse
        )
        self._reusable = len(request.tokens)
        stats = request.stats
        stats.requests += 1
        stats.prompt_tokens += len(request.tokens)
        stats.evaluated_prompt_tokens += len(request.tokens) - keep
        if isinstance(request, ScoringRequest):
            return decode.score_continuations(
                self._llm, request.tokens, request.choice_tokens, keep
            )
        assert isinstance(request, GenerationRequest)
        return decode.generate_tokens(self._llm, request.tokens, request.config, keep)


_engines: dict[LlamaSettings, LlamaEngine] = {}
_engines_lock = threading.Lock()


def shared_engine(settings: LlamaSettings) -> LlamaEngine:
    """Return the process's engine for these settings, loading the model the first time."""
    with _engines_lock:
        engine = _engines.get(settings)
        if engine is None or engine.closed:
            logger.info("loading %s with llama.cpp", settings.path.name)
            engine = LlamaEngine(settings)
            _engines[settings] = engine
        return engine


def free_llama_cache() -> None:
    """Close every shared engine and free its model; later models load afresh (for tests)."""
    with _engines_lock:
        engines = list(_engines.values())
        _engines.clear()
    for engine in engines:
        engine.close()
