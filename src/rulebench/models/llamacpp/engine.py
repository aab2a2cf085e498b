"""One long-lived llama.cpp model per process and settings, decoding many requests at once.

A `llama_cpp.Llama` takes seconds to load, so every LlamaCppModel built with the same file and
settings shares one engine. The engine's worker thread only tokenizes arriving requests and
hands each to a lane (llamacpp_batch_lane): a llama.cpp context of several sequences with a
thread of its own. A lane decodes all its generating sequences in one call per token; lanes run
side by side, sharing the model's weights and a cache of evaluated prompts.

Why lanes rather than more llama.cpp threads: threads of one llama.cpp call meet at a barrier
after every operation, so on a shared machine a busy neighbour stalls them all (2 threads fall
below 1); lanes never wait for each other.

Replies do not depend on what else is decoded at the same time, nor on what the prompt cache
held (tests/models/llamacpp/test_llamacpp_batch.py). They may differ from the single-sequence engine
this replaced, whose generated tokens saw a KV layout of one stream (see llamacpp_batch).
"""

import atexit
import logging
import os
import threading
from typing import Any

from rulebench.core.errors import ConfigError, ModelError
from rulebench.models.job_worker import JobWorker
from rulebench.models.llamacpp import decode
from rulebench.models.llamacpp.batch import BatchContext, kv_bytes_per_token
from rulebench.models.llamacpp.batch_cache import PrefixCache
from rulebench.models.llamacpp.batch_lane import Lane
from rulebench.models.llamacpp.batch_requests import (
    EvalStats,
    GenerationRequest,
    LlamaSettings,
    Request,
    ScoringRequest,
)
from rulebench.models.llamacpp.gguf_facts import GgufFacts
from rulebench.models.llamacpp.layout import Layout, LayoutRequest, choose_layout

__all__ = [
    "EvalStats",
    "GenerationRequest",
    "LlamaEngine",
    "LlamaSettings",
    "Request",
    "ScoringRequest",
    "free_llama_cache",
    "shared_engine",
]

logger = logging.getLogger(__name__)

PREFIX_CACHE_BYTES = 128 << 20
"""Saved prompt cells kept in host memory: ~5,800 tokens of the embedded model. A larger cache
saves little: most reuse is between prompts sent close together."""
MIN_AFFINITY_TOKENS = 32
"""A request goes to the lane about to evaluate a prompt sharing this many leading tokens."""


def layout_request(
    settings: LlamaSettings, kv_bytes: int, cpus: int, in_flight: int | None
) -> LayoutRequest:
    """What `choose_layout` needs: the settings given, the model's KV size, the work."""
    return LayoutRequest(
        n_ctx=settings.n_ctx, kv_bytes_per_token=kv_bytes, cpus=cpus, in_flight=in_flight,
        lanes=settings.lanes, n_seq_max=settings.n_seq_max, n_threads=settings.n_threads,
        n_threads_batch=settings.n_threads_batch,
    )  # fmt: skip


class LlamaEngine(JobWorker[Request[Any]]):
    """A loaded Llama, its chat template, and the lanes that decode its requests."""

    label = "llamacpp"
    closed_message = "the engine was closed"

    def __init__(self, settings: LlamaSettings) -> None:
        self.settings = settings
        self.chat_template: str = ""
        self.bos_text = ""
        self.eos_text = ""
        self.lanes: list[Lane] = []
        self.layout: Layout | None = None
        """Chosen when the first request arrives, from the prompts then expected in flight."""
        self._in_flight: int | None = None
        self._llm: Any = None
        super().__init__(f"llamacpp:{settings.path.name}")
        self.started.result()  # loading failed: raise its error here

    def facts(self) -> GgufFacts:
        """What prompts are built from: the loaded model's chat template and special tokens."""
        return GgufFacts.of_template(self.chat_template, self.bos_text, self.eos_text)

    def on_start(self) -> None:
        """Load the model; its lanes start with the first request (`run`)."""
        try:
            self._load()
        except BaseException:
            self.on_stop()
            raise

    def expect_in_flight(self, requests: int) -> None:
        """Say how many prompts a run keeps in flight, for the layout (`llamacpp_layout`).

        Heard before the first request; the most any model of this engine expects counts.
        """
        self._in_flight = max(self._in_flight or 0, requests)

    def on_stop(self) -> None:
        """Stop the lanes (failing what they hold), then free the model."""
        for lane in self.lanes:
            lane.close()
        if self._llm is not None:
            self._llm.close()

    def _load(self) -> None:
        import llama_cpp

        settings = self.settings
        try:
            # This Llama's own context is unused (the lanes make theirs): the smallest one.
            self._llm = llama_cpp.Llama(
                model_path=str(settings.path), n_ctx=64, n_batch=64, n_threads=1,
                n_threads_batch=1, logits_all=False, verbose=False,
            )  # fmt: skip
        except (ValueError, RuntimeError) as exc:
            raise ConfigError(f"llamacpp: cannot load {settings.path}: {exc}") from None
        # A base model's GGUF has none: LlamaCppModel then prompts with a transcript.
        self.chat_template = self._llm.metadata.get("tokenizer.chat_template") or ""
        self.bos_text = self._token_text(self._llm.token_bos())
        self.eos_text = self._token_text(self._llm.token_eos())

    def _start_lanes(self) -> None:
        import llama_cpp

        model = self._llm.model
        # Recurrent state cannot be cut back to a prefix: such models always start over.
        reuse = not (llama_cpp.llama_model_is_recurrent(model) or
                     llama_cpp.llama_model_is_hybrid(model))  # fmt: skip
        kv_bytes, cpus = kv_bytes_per_token(self._llm), os.cpu_count() or 1
        layout = choose_layout(layout_request(self.settings, kv_bytes, cpus, self._in_flight))
        cache = PrefixCache(PREFIX_CACHE_BYTES)
        try:
            for index in range(layout.lanes):
                context = BatchContext(self._llm, layout, self.settings)
                name = f"llamacpp:{self.settings.path.name}:lane{index}"
                self.lanes.append(Lane(name, self._llm, context, cache, reuse))
        except ConfigError:  # no room for a context: the next request tries again
            for lane in self.lanes:
                lane.close()
            self.lanes.clear()
            raise
        logger.info(layout.describe())
        self.layout = layout

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
        """Every admitted request: the lanes order their own work."""
        return list(waiting)

    def run(self, requests: list[Request[Any]]) -> None:
        """Hand each request to a lane (starting the lanes on the first)."""
        if self.layout is None:
            try:
                self._start_lanes()
            except ConfigError as exc:
                for request in requests:
                    request.future.set_exception(exc)
                return
        for request in requests:
            try:
                self._route(request).give(request)
            except ModelError as exc:
                request.future.set_exception(exc)

    def _route(self, request: Request[Any]) -> Lane:
        """The lane that should take a request.

        That is the lane about to evaluate a prompt sharing a long prefix, if it has room (so
        the prefix is evaluated once, not once per lane); else the least loaded, first if equal.
        """
        live = [lane for lane in self.lanes if not lane.closed]
        if not live:
            raise ModelError(f"llamacpp: {self.closed_message}")
        if request.prefix_reuse:
            shared = [lane.affinity(request.tokens) for lane in live]
            best = live[shared.index(max(shared))]
            if max(shared) >= MIN_AFFINITY_TOKENS and best.load() < best.slots:
                return best
        loads = [lane.load() for lane in live]
        return live[loads.index(min(loads))]


_engines: dict[LlamaSettings, LlamaEngine] = {}
_engines_lock = threading.Lock()


def shared_engine(settings: LlamaSettings) -> LlamaEngine:
    """Return the process's engine for these settings, loading the model the first time.

    The process frees its engines at exit, in order (rulebench.models.release): left to the
    interpreter's teardown, a lane still decoding would read a freed model and crash.
    """
    with _engines_lock:
        engine = _engines.get(settings)
        if engine is None or engine.closed:
            if not _engines:
                atexit.register(free_llama_cache)  # again after a free: it unregisters itself
            logger.info("loading %s with llama.cpp", settings.path.name)
            engine = LlamaEngine(settings)
            _engines[settings] = engine
        return engine


def free_llama_cache() -> None:
    """Close every shared engine and free its model; later models load afresh.

    Each engine stops its lanes first (each ends its decode loop at the next step, joins its
    thread and frees its context there), then frees the model.
    """
    with _engines_lock:
        engines = list(_engines.values())
        _engines.clear()
        atexit.unregister(free_llama_cache)
    for engine in engines:
        engine.close()
