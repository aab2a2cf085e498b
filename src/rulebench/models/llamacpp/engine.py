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

KV_BUDGET_BYTES = 384 << 20
"""KV cache the automatic sizing may take for all sequences: 4 sequences of 4,096 tokens for
the embedded model (22.5 KiB a token), one for a 7B model without grouped-query attention. More
sequences barely speed up the default commands: prompts dominate, and a slot waiting for a
prompt costs nothing."""
MAX_AUTO_SEQUENCES = 8
"""Sequences the automatic sizing stops at (a shorter n_ctx fits more in the budget): a step
of 8 sequences already costs several times a step of one, for less than twice the tokens/s."""
PREFIX_CACHE_BYTES = 128 << 20
"""Saved prompt cells kept in host memory: ~5,800 tokens of the embedded model. A larger cache
saves little: most reuse is between prompts sent close together."""
MIN_AFFINITY_TOKENS = 32
"""A request goes to the lane about to evaluate a prompt sharing this many leading tokens."""


def plan_lanes(settings: LlamaSettings, kv_bytes: int, cpus: int) -> tuple[int, int]:
    """Lanes and sequences per lane: the settings', else what the KV budget and cores allow."""
    lanes = settings.lanes or max(1, min(2, cpus))
    if settings.n_seq_max is not None:
        return lanes, settings.n_seq_max
    total = KV_BUDGET_BYTES // max(1, settings.n_ctx * kv_bytes)
    total = max(1, min(MAX_AUTO_SEQUENCES, total))
    if settings.lanes is None:
        lanes = min(lanes, total)
    return lanes, max(1, total // lanes)


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
        self._llm: Any = None
        super().__init__(f"llamacpp:{settings.path.name}")
        self.started.result()  # loading failed: raise its error here

    def facts(self) -> GgufFacts:
        """What prompts are built from: the loaded model's chat template and special tokens."""
        return GgufFacts.of_template(self.chat_template, self.bos_text, self.eos_text)

    def on_start(self) -> None:
        """Load the model and start its lanes."""
        try:
            self._load()
            self._start_lanes()
        except BaseException:
            self.on_stop()
            raise

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
        lanes, slots = plan_lanes(self.settings, kv_bytes_per_token(self._llm), os.cpu_count() or 1)
        logger.info("llamacpp: %d lane(s) of %d sequence(s)", lanes, slots)
        cache = PrefixCache(PREFIX_CACHE_BYTES)
        for index in range(lanes):
            context = BatchContext(self._llm, slots, self.settings.n_ctx, self.settings)
            name = f"llamacpp:{self.settings.path.name}:lane{index}"
            self.lanes.append(Lane(name, self._llm, context, cache, reuse))

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
        """Hand each request to a lane."""
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
