"""One llama.cpp context holding several sequences at once, each in a KV stream of its own.

A lane (llamacpp_batch_lane) drives one of these from its own thread. The layout is chosen so
that a sequence's logits never depend on what else is decoded with it (checked on the embedded
SmolLM2 Q4_1 build by tests/models/llamacpp/test_llamacpp_batch.py):

- Non-unified KV (`kv_unified=false`): every sequence has its own stream whose cells start at 0
  and hold positions in order. In one unified buffer, a sequence's cells land wherever the others
  leave room, and where they land changed its logits.
- No flash attention: its result moved with the chunking of the prompt and with what shared the
  batch. Without it, prompt chunks of any length >= 2 give bit-identical cells and logits; the
  speed it gave on prompts is given up for that.
- One token per sequence in a decode step takes another kernel than a chunk of >= 2 (its logits
  differ), but always the same one, whatever the other sequences in the step. So the
  cells of generated tokens are never reused for a later prompt (see llamacpp_batch_lane).
- llama.cpp splits a multi-stream batch into ubatches of consecutive, ascending sequence ids
  only, so a step is sent ordered by slot and the lane keeps its generating slots at 0..n-1
  (scattered slots split a step into more ubatches and make it slower).
"""

import ctypes
from collections.abc import Sequence
from typing import Any

import numpy as np

from rulebench.core.errors import ConfigError, ModelError

Llama = Any
"""llama_cpp.Llama; typed loosely because llama_cpp is imported only where it is used."""


def kv_bytes_per_token(llm: Llama) -> int:
    """Bytes of f16 keys and values one token takes in the KV cache, across all layers.

    Assumes heads of n_embd / n_head dimensions: an estimate, for sizing only.
    """
    import llama_cpp

    model = llm.model
    heads = max(1, llama_cpp.llama_model_n_head(model))
    head_dim = llama_cpp.llama_model_n_embd(model) // heads
    per_layer = 2 * llama_cpp.llama_model_n_head_kv(model) * head_dim * 2
    return int(llama_cpp.llama_model_n_layer(model) * per_layer)


class BatchContext:
    """A llama_context with `slots` KV streams of `n_ctx` tokens each, and its batch buffer."""

    def __init__(self, llm: Llama, layout: Any, settings: Any) -> None:
        """`layout` (llamacpp_layout.Layout): this lane's sequences and threads."""
        import llama_cpp

        slots, n_ctx = layout.sequences, settings.n_ctx
        self._lib = llama_cpp
        self.slots = slots
        self.n_batch = settings.n_batch
        self.n_vocab = int(llm.n_vocab())
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = n_ctx * slots
        params.n_batch = params.n_ubatch = settings.n_batch
        params.n_seq_max = slots
        params.kv_unified = False
        params.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
        params.n_threads = layout.threads
        params.n_threads_batch = layout.threads_batch
        params.no_perf = True
        self._ctx = llama_cpp.llama_init_from_model(llm.model, params)
        if not self._ctx:
            raise ConfigError(
                f"llamacpp: cannot create a context of {slots} sequences x {n_ctx} tokens for "
                f"{settings.path}; lower -M n_seq_max or -M n_ctx"
            )
        self.n_ctx = min(n_ctx, int(llama_cpp.llama_n_ctx_seq(self._ctx)))
        """Tokens one sequence may hold: prompt plus reply."""
        self._memory = llama_cpp.llama_get_memory(self._ctx)
        self._batch = llama_cpp.llama_batch_init(max(settings.n_batch, slots), 0, 1)

    def close(self) -> None:
        """Free the context and its batch (on the thread that used them)."""
        if self._ctx:
            self._lib.llama_batch_free(self._batch)
            self._lib.llama_free(self._ctx)
            self._ctx = None

    # Evaluation.

    def evaluate(self, slot: int, tokens: Sequence[int], start: int, all_logits: bool) -> None:
        """Decode `tokens` at positions `start`.. of one slot, in one llama_decode call.

        With `all_logits` every position keeps its logits (for scoring), else only the last.
        """
        batch = self._batch
        batch.n_tokens = len(tokens)
        for i, token in enumerate(tokens):
            batch.token[i] = token
            batch.pos[i] = start + i
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = slot
            batch.logits[i] = all_logits
        batch.logits[len(tokens) - 1] = True
        self._decode(len(tokens))

    def step(self, entries: Sequence[tuple[int, int, int]]) -> None:
        """Decode one token for each (slot, token, position), slots ascending and consecutive."""
        batch = self._batch
        batch.n_tokens = len(entries)
        for i, (slot, token, position) in enumerate(entries):
            batch.token[i] = token
            batch.pos[i] = position
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = slot
            batch.logits[i] = True
        self._decode(len(entries))

    def logits(self, index: int) -> np.ndarray[Any, Any]:
        """The logits row of the `index`-th token of the last decode (-1: its last), a view."""
        pointer = self._lib.llama_get_logits_ith(self._ctx, index)
        if not pointer:
            raise ModelError(f"llamacpp: no logits for batch position {index}")
        return np.ctypeslib.as_array(pointer, shape=(self.n_vocab,))

    def all_logits(self, count: int) -> np.ndarray[Any, Any]:
        """The logits rows of the last decode's `count` tokens (every one asked for), a view."""
        pointer = self._lib.llama_get_logits(self._ctx)
        return np.ctypeslib.as_array(pointer, shape=(count, self.n_vocab))

    def _decode(self, n_tokens: int) -> None:
        code = self._lib.llama_decode(self._ctx, self._batch)
        if code != 0:
            raise ModelError(f"llamacpp: llama_decode failed with code {code} ({n_tokens} tokens)")

    # The slots' KV cells.

    def clear(self, slot: int) -> None:
        """Drop every cell of a slot."""
        self._lib.llama_memory_seq_rm(self._memory, slot, -1, -1)

    def truncate(self, slot: int, length: int) -> bool:
        """Keep a slot's first `length` cells; False where the model cannot (recurrent state)."""
        return bool(self._lib.llama_memory_seq_rm(self._memory, slot, length, -1))

    def save(self, slot: int) -> bytes:
        """A slot's cells as bytes, for the prefix cache or to move it to another slot."""
        size = self._lib.llama_state_seq_get_size(self._ctx, slot)
        buffer = (ctypes.c_uint8 * size)()
        written = self._lib.llama_state_seq_get_data(self._ctx, buffer, size, slot)
        return ctypes.string_at(buffer, written)

    def restore(self, slot: int, state: bytes) -> bool:
        """Replace a slot's cells by saved ones, placed from cell 0 as if evaluated there."""
        self.clear(slot)
        buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
        if self._lib.llama_state_seq_set_data(self._ctx, buffer, len(state), slot) == 0:
            self.clear(slot)
            return False
        return True

    def move(self, source: int, target: int) -> None:
        """Move a slot's cells to an empty slot (to keep generating slots consecutive)."""
        if not self.restore(target, self.save(source)):
            raise ModelError(f"llamacpp: could not move sequence {source} to slot {target}")
        self.clear(source)
