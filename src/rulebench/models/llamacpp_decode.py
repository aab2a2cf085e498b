"""What the llamacpp worker thread does with a Llama: tokenize, reuse the KV prefix, generate.

Every function here calls llama.cpp and must run on the engine's one worker thread. The KV cache
state is Llama's own: `llm.input_ids[:llm.n_tokens]` are the tokens whose keys and values are
cached, and `Llama.eval` drops every cell from `n_tokens` on before decoding, so rewinding is
setting `n_tokens`. (`Llama.generate(reset=True)` does the same longest-prefix match internally,
but it cannot be switched off per request nor tells how much it evaluated, so it is done here.)

Reuse must not change a reply. llama.cpp decodes a single token by another kernel than a batch
(measured on the embedded Q4_1 model: logits off by up to 0.66, greedy replies diverge), while
batches of any size >= 2 give bit-identical results. So prompts are evaluated in chunks of at
least two tokens, at least the last two prompt tokens are always evaluated again, and only
cached prompt tokens are reused, never generated ones (those were decoded one at a time).
"""

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rulebench.core.errors import ModelError
from rulebench.core.messages import GenerateConfig
from rulebench.models.local_chat import cut_at_stop

logger = logging.getLogger(__name__)

Llama = Any
"""llama_cpp.Llama; typed loosely because llama_cpp is imported only where it is used."""


@dataclass(frozen=True)
class Generated:
    """A generation's text and token counts, before it becomes a Completion."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str


def tokenize_prompt(llm: Llama, prompt: str, bos_text: str) -> list[int]:
    """Tokenize a rendered chat prompt: special tokens parsed, BOS added once if the model asks."""
    add_bos = not (bos_text and prompt.startswith(bos_text))
    tokens: list[int] = llm.tokenize(prompt.encode("utf-8"), add_bos=add_bos, special=True)
    return tokens


def split_continuations(
    llm: Llama, prompt: str, bos_text: str, choices: Sequence[str]
) -> list[list[int]]:
    """Return each choice's tokens as they follow the prompt.

    Tokenizing prompt and choice together and keeping the suffix gives the tokens the model would
    see; when the boundary merges (the prompt's tokens are no prefix), the choice is tokenized
    alone instead, which is what the model would have to produce after the prompt anyway.
    """
    prompt_tokens = tokenize_prompt(llm, prompt, bos_text)
    result = []
    for choice in choices:
        joined = tokenize_prompt(llm, prompt + choice, bos_text)
        if joined[: len(prompt_tokens)] == prompt_tokens:
            suffix = joined[len(prompt_tokens) :]
        else:
            logger.debug("choice %r merges with the prompt's last token; tokenized alone", choice)
            suffix = llm.tokenize(choice.encode("utf-8"), add_bos=False, special=False)
        if not suffix:
            raise ModelError(
                f"llamacpp: choice {choice!r} tokenizes to nothing; it cannot be scored"
            )
        result.append(suffix)
    return result


def common_prefix_length(cached: Sequence[int], tokens: Sequence[int]) -> int:
    """Count the leading tokens two sequences share."""
    length = min(len(cached), len(tokens))
    differ = np.flatnonzero(np.asarray(cached[:length]) != np.asarray(tokens[:length]))
    return int(differ[0]) if differ.size else length


def context_length(llm: Llama) -> int:
    """Tokens the context holds, prompt and reply together.

    llama.cpp may pad n_ctx (64 becomes 256) but Llama's own token buffer keeps the size asked
    for, so the smaller of the two is the limit.
    """
    return min(int(llm.n_ctx()), len(llm.input_ids))


def cached_tokens(llm: Llama, reusable: int) -> Sequence[int]:
    """The cached tokens a new prompt may reuse: the first `reusable` (batch-evaluated) ones."""
    cached: Sequence[int] = llm.input_ids[: min(llm.n_tokens, reusable)]
    return cached


def rewind_to_prefix(llm: Llama, tokens: Sequence[int], reusable: int, reuse: bool) -> int:
    """Rewind the KV cache to the longest prefix it shares with `tokens`; return its length.

    The last two prompt tokens are always evaluated again (see the module docstring). Recurrent
    models cannot drop part of their state, so they always start over.
    """
    if len(tokens) >= context_length(llm):
        raise ModelError(
            f"llamacpp: the prompt has {len(tokens)} tokens but the context holds "
            f"{context_length(llm)}; raise -M n_ctx"
        )
    recurrent = getattr(llm, "_is_recurrent", False) or getattr(llm, "_is_hybrid", False)
    keep = 0
    if reuse and not recurrent:
        shared = common_prefix_length(cached_tokens(llm, reusable), tokens)
        keep = max(0, min(shared, len(tokens) - 2))
    if keep == 0:
        llm.reset()
    llm.n_tokens = keep
    return keep


def chunk_bounds(length: int, n_batch: int) -> list[tuple[int, int]]:
    """Split `length` tokens into runs of at most `n_batch` (>= 3), none of a single token."""
    bounds = [(start, min(start + n_batch, length)) for start in range(0, length, n_batch)]
    if len(bounds) > 1 and bounds[-1][1] - bounds[-1][0] == 1:
        (start, end), (_, last) = bounds[-2], bounds[-1]
        bounds[-2:] = [(start, end - 1), (end - 1, last)]
    return bounds


def evaluate_prompt(llm: Llama, tokens: Sequence[int], keep: int) -> None:
    """Evaluate `tokens[keep:]` after the cached `keep`, in runs of two or more tokens."""
    suffix = list(tokens[keep:])
    for start, end in chunk_bounds(len(suffix), llm.n_batch):
        llm.eval(suffix[start:end])


def generate_tokens(llm: Llama, tokens: list[int], config: GenerateConfig, keep: int) -> Generated:
    """Generate a reply to prompt `tokens`, of which the first `keep` are already cached."""
    import llama_cpp

    budget = min(config.max_tokens, context_length(llm) - len(tokens))
    llm.set_seed(config.seed if config.seed is not None else random.getrandbits(32))
    completion: list[int] = []
    raw = b""
    text, finish = "", "length"
    evaluate_prompt(llm, tokens, keep)
    # With no tokens given and reset=False, generate() samples from the logits just computed.
    steps = llm.generate(
        [], reset=False, temp=config.temperature, top_p=config.top_p,
        top_k=0, min_p=0.0, repeat_penalty=1.0,
    )  # fmt: skip
    for token in steps:
        # End-of-generation covers every end token the vocabulary marks (<|im_end|>, <|eot_id|>).
        if llama_cpp.llama_vocab_is_eog(llm._model.vocab, token):
            finish = "stop"
            break
        completion.append(token)
        raw += llm.detokenize([token])
        text, stopped = cut_at_stop(raw.decode("utf-8", errors="ignore"), config.stop)
        if stopped:
            finish = "stop"
            break
        if len(completion) >= budget:
            break
    return Generated(
        text=text,
        prompt_tokens=len(tokens),
        completion_tokens=len(completion),
        finish_reason=finish,
    )


def log_softmax(logits: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Normalise logits (last axis) to log-probabilities, in float64 for summing."""
    values = logits.astype(np.float64)
    shifted = values - values.max(axis=-1, keepdims=True)
    result: np.ndarray[Any, Any] = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return result


def score_continuations(
    llm: Llama, prompt: list[int], continuations: list[list[int]], keep: int
) -> list[float]:
    """Sum each continuation's token log-probabilities after `prompt`; leave the prompt cached."""
    import llama_cpp

    if len(prompt) + max(map(len, continuations)) > context_length(llm):
        raise ModelError(f"llamacpp: prompt and longest choice exceed n_ctx={context_length(llm)}")
    evaluate_prompt(llm, prompt, keep)
    vocab = llm.n_vocab()
    last = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm.ctx, -1), shape=(vocab,))
    first = log_softmax(last)
    scores = []
    for tokens in continuations:
        rows = _decode_all_logits(llm, tokens[:-1], len(prompt))
        later = log_softmax(rows)[np.arange(len(tokens) - 1), tokens[1:]].sum() if len(rows) else 0
        scores.append(float(first[tokens[0]] + later))
    return scores


def _decode_all_logits(llm: Llama, tokens: list[int], n_past: int) -> np.ndarray[Any, Any]:
    """Decode `tokens` after the first `n_past` cached ones, keeping every position's logits.

    One decode per n_batch tokens instead of one per token (Llama.eval keeps only the last
    position's logits unless the whole model is built with logits_all, which costs n_ctx x vocab
    floats); the cells are dropped again afterwards so the KV cache still holds the prompt only.
    """
    import llama_cpp
    from llama_cpp import _internals

    vocab = llm.n_vocab()
    rows = np.empty((len(tokens), vocab), dtype=np.float32)
    batch = _internals.LlamaBatch(n_tokens=llm.n_batch, embd=0, n_seq_max=1, verbose=False)
    for start in range(0, len(tokens), llm.n_batch):
        chunk = tokens[start : start + llm.n_batch]
        batch.set_batch(chunk, n_past=n_past + start, logits_all=True)
        llm._ctx.decode(batch)
        logits = llama_cpp.llama_get_logits(llm.ctx)
        rows[start : start + len(chunk)] = np.ctypeslib.as_array(logits, shape=(len(chunk), vocab))
    llm._ctx.kv_cache_seq_rm(-1, n_past, -1)
    return rows
