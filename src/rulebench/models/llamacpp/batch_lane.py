"""A lane: one BatchContext and the thread that alone drives it, decoding its slots together.

The loop evaluates one waiting prompt whenever a slot is free (prompts first: evaluating a prompt
costs the same per token whatever it shares a call with, while a decode step gets cheaper per token
the more sequences it holds), else decodes one token for every generating slot in a single
llama_decode call.

Prompt cells come from the engine's PrefixCache when a saved prompt shares a prefix, and every
evaluated prompt is saved there. Only cells evaluated as part of a prompt are saved: generated
tokens are decoded one per sequence, by another kernel than prompt chunks (llamacpp_batch), so
reusing them would change the next prompt's logits. At least the last two prompt tokens are
always evaluated again, for the logits of the reply's first token.
"""

import logging
import threading
from typing import Any

import numpy as np

from rulebench.core.errors import ModelError, RulebenchError
from rulebench.models.llamacpp.batch import BatchContext
from rulebench.models.llamacpp.batch_cache import PrefixCache
from rulebench.models.llamacpp.batch_requests import GenerationRequest, Request, ScoringRequest
from rulebench.models.llamacpp.batch_seq import Decoding
from rulebench.models.llamacpp.decode import chunk_bounds, common_prefix_length, log_softmax

logger = logging.getLogger(__name__)

Llama = Any
"""llama_cpp.Llama; typed loosely because llama_cpp is imported only where it is used."""

MIN_RESTORE_TOKENS = 8
"""Shorter shared prefixes are evaluated again: a restore costs time for every saved token (up to a
whole prompt), so reusing only a few tokens of a large saved prompt costs more than it saves."""


def as_model_error(exc: Exception) -> RulebenchError:
    """Keep our own errors; wrap the library's so the runner records them as item errors."""
    return exc if isinstance(exc, RulebenchError) else ModelError(f"llamacpp: {exc!r}")


class Lane:
    """Requests given to this lane, the slots they decode in, and the thread doing it."""

    def __init__(
        self, name: str, llm: Llama, context: BatchContext, cache: PrefixCache, reuse: bool
    ) -> None:
        import llama_cpp

        self._llm = llm
        self._vocab = llama_cpp.llama_model_get_vocab(llm.model)
        self._context = context
        self._cache = cache
        self._reuse = reuse
        """Whether cells may be saved and restored (not for recurrent models' state)."""
        self.slots = context.slots
        self._decodings: list[Decoding | None] = [None] * context.slots
        self._queue: list[Request[Any]] = []
        """Requests given but not started, oldest first; guarded by `_wakeup`."""
        self._starting: Request[Any] | None = None
        self._closed = False
        self._wakeup = threading.Condition()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    @property
    def closed(self) -> bool:
        """Whether the lane has stopped taking requests."""
        return self._closed

    def give(self, request: Request[Any]) -> None:
        """Queue an admitted (tokenized) request on this lane."""
        with self._wakeup:
            if self._closed:
                raise ModelError("llamacpp: the engine was closed")
            self._queue.append(request)
            self._wakeup.notify()

    def load(self) -> int:
        """Requests queued or in a slot."""
        with self._wakeup:
            running = sum(d is not None for d in self._decodings)
            return len(self._queue) + running + (self._starting is not None)

    def affinity(self, tokens: list[int]) -> int:
        """The longest prefix `tokens` share with a prompt this lane has yet to evaluate.

        Such a request on another lane would evaluate that prefix a second time, meanwhile.
        """
        with self._wakeup:
            unevaluated = [*self._queue, *([self._starting] if self._starting else [])]
        return max((common_prefix_length(r.tokens, tokens) for r in unevaluated), default=0)

    def close(self) -> None:
        """Fail what the lane still holds, stop its thread and free its context."""
        with self._wakeup:
            self._closed = True
            self._wakeup.notify()
        self._thread.join()

    # The loop.

    def _serve(self) -> None:
        failure: RulebenchError = ModelError("llamacpp: the engine was closed")
        try:
            while self._next_unit():
                pass
        except Exception as exc:  # a bug here must not leave callers waiting forever
            logger.exception("llamacpp lane stopped")
            failure = as_model_error(exc)
        finally:
            with self._wakeup:
                self._closed = True
                held = [*self._queue, *(d.request for d in self._decodings if d is not None)]
                self._queue.clear()
            for request in held:
                if not request.future.done():
                    request.future.set_exception(failure)
            self._context.close()

    def _next_unit(self) -> bool:
        """Start a waiting request if a slot is free, else decode a step; False once closed."""
        with self._wakeup:
            while not self._closed and not self._queue and not any(self._decodings):
                self._wakeup.wait()
            if self._closed:
                return False
            slot = self._free_slot()
            request = self._pick() if slot is not None and self._queue else None
            self._starting = request
        if request is None or slot is None:
            self._step()
            return True
        self._start(request, slot)
        with self._wakeup:
            self._starting = None
        return True

    def _free_slot(self) -> int | None:
        return next((i for i, d in enumerate(self._decodings) if d is None), None)

    def _pick(self) -> Request[Any]:
        """The queued request sharing the longest prefix with a saved prompt; oldest if equal."""
        shared = [
            self._cache.shared_length(r.tokens) if r.prefix_reuse and self._reuse else 0
            for r in self._queue
        ]
        return self._queue.pop(shared.index(max(shared)))

    # Prompts.

    def _start(self, request: Request[Any], slot: int) -> None:
        """Evaluate a request's prompt in `slot`; score it, or begin its reply."""
        try:
            self._check_length(request)
            self._evaluate_prompt(request, slot)
            if isinstance(request, ScoringRequest):
                request.future.set_result(self._score(request, slot))
                return
            assert isinstance(request, GenerationRequest)
            decoding = Decoding(request, slot, self._context.n_ctx)
            decoding.take(self._context.logits(-1), self._llm, self._vocab)
        except Exception as exc:
            self._context.clear(slot)
            request.future.set_exception(as_model_error(exc))
            return
        if decoding.done:
            request.future.set_result(decoding.result())
            return
        with self._wakeup:
            self._decodings[slot] = decoding

    def _check_length(self, request: Request[Any]) -> None:
        limit = self._context.n_ctx
        if len(request.tokens) >= limit:
            raise ModelError(
                f"llamacpp: the prompt has {len(request.tokens)} tokens but the context holds "
                f"{limit}; raise -M n_ctx"
            )
        if isinstance(request, ScoringRequest):
            longest = max(map(len, request.choice_tokens))
            if len(request.tokens) + longest > limit:
                raise ModelError(f"llamacpp: prompt and longest choice exceed n_ctx={limit}")

    def _evaluate_prompt(self, request: Request[Any], slot: int) -> None:
        """Fill `slot` with the prompt's cells (restored or evaluated) and save them."""
        tokens = request.tokens
        keep = self._restore_prefix(request, slot)
        for start, end in chunk_bounds(len(tokens) - keep, self._context.n_batch):
            chunk = tokens[keep + start : keep + end]
            self._context.evaluate(slot, chunk, keep + start, all_logits=False)
        request.stats.add(len(tokens), len(tokens) - keep)
        if self._reuse and keep < len(tokens):
            self._cache.put(tokens, self._context.save(slot))

    def _restore_prefix(self, request: Request[Any], slot: int) -> int:
        """Load the longest saved prefix into `slot`; return how many cells it now holds."""
        context = self._context
        found = (
            self._cache.longest(request.tokens) if request.prefix_reuse and self._reuse else None
        )
        if found is not None:
            state, shared = found
            keep = min(shared, len(request.tokens) - 2)
            restored = keep >= MIN_RESTORE_TOKENS and context.restore(slot, state)
            if restored and context.truncate(slot, keep):
                return keep
        context.clear(slot)
        return 0

    def _score(self, request: ScoringRequest, slot: int) -> list[float]:
        """Sum each choice's token log-probabilities after the evaluated prompt."""
        context, prompt = self._context, len(request.tokens)
        first = log_softmax(context.logits(-1))
        scores = []
        for choice in request.choice_tokens:
            later = 0.0
            if len(choice) > 1:
                rows = np.empty((len(choice) - 1, context.n_vocab), dtype=np.float32)
                for start in range(0, len(choice) - 1, context.n_batch):
                    chunk = choice[start : min(start + context.n_batch, len(choice) - 1)]
                    context.evaluate(slot, chunk, prompt + start, all_logits=True)
                    rows[start : start + len(chunk)] = context.all_logits(len(chunk))
                picked = log_softmax(rows)[np.arange(len(choice) - 1), choice[1:]]
                later = float(picked.sum())
                self._rewind(request, slot)
            scores.append(float(first[choice[0]]) + later)
        return scores

    def _rewind(self, request: ScoringRequest, slot: int) -> None:
        """Drop a scored choice's cells; a model that cannot evaluates the prompt again."""
        if not self._context.truncate(slot, len(request.tokens)):
            self._context.clear(slot)
            for start, end in chunk_bounds(len(request.tokens), self._context.n_batch):
                chunk = request.tokens[start:end]
                self._context.evaluate(slot, chunk, start, all_logits=False)

    # Replies.

    def _step(self) -> None:
        """Decode the last sampled token of every generating slot, then sample the next ones."""
        self._compact()
        running = [d for d in self._decodings if d is not None]
        entries = [(d.slot, d.completion[-1], d.next_position) for d in running]
        try:
            self._context.step(entries)
        except Exception as exc:
            for decoding in running:
                self._finish(decoding, as_model_error(exc))
            return
        for index, decoding in enumerate(running):
            try:
                decoding.take(self._context.logits(index), self._llm, self._vocab)
            except Exception as exc:
                self._finish(decoding, as_model_error(exc))
                continue
            if decoding.done:
                self._finish(decoding)

    def _finish(self, decoding: Decoding, error: RulebenchError | None = None) -> None:
        with self._wakeup:
            self._decodings[decoding.slot] = None
        if error is None:
            decoding.request.future.set_result(decoding.result())
        else:
            self._context.clear(decoding.slot)
            decoding.request.future.set_exception(error)

    def _compact(self) -> None:
        """Move generating sequences down to slots 0..n-1 (llama.cpp batches only such runs)."""
        while True:
            used = [i for i, d in enumerate(self._decodings) if d is not None]
            if not used or used[-1] == len(used) - 1:
                return
            hole, last = self._decodings.index(None), used[-1]
            self._context.move(last, hole)
            with self._wakeup:
                decoding = self._decodings[last]
                assert decoding is not None
                decoding.slot = hole
                self._decodings[hole], self._decodings[last] = decoding, None
