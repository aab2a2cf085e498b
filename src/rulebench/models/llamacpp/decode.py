"""Tokens for the llamacpp engine: tokenizing prompts and choices, shared prefixes, chunking.

Tokenizing only reads the vocabulary, so the engine's router thread does it while the lanes
decode (llamacpp_batch_lane). Prompts are evaluated in chunks of at least two tokens: llama.cpp
decodes a single token of a sequence by another kernel than a chunk (its logits differ enough
for greedy replies to diverge), while chunks of any size >= 2 give bit-identical cells and
logits.
"""

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from rulebench.core.errors import ModelError

logger = logging.getLogger(__name__)

Llama = Any
"""llama_cpp.Llama; typed loosely because llama_cpp is imported only where it is used."""


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


TokenIds = Sequence[int] | np.ndarray[Any, np.dtype[np.int32]]
"""Token ids as a list or a numpy array."""


def common_prefix_length(cached: TokenIds, tokens: TokenIds) -> int:
    """Count the leading tokens two sequences share."""
    length = min(len(cached), len(tokens))
    differ = np.flatnonzero(np.asarray(cached[:length]) != np.asarray(tokens[:length]))
    return int(differ[0]) if differ.size else length


def chunk_bounds(length: int, n_batch: int) -> list[tuple[int, int]]:
    """Split `length` tokens into runs of at most `n_batch` (>= 3), none of a single token."""
    bounds = [(start, min(start + n_batch, length)) for start in range(0, length, n_batch)]
    if len(bounds) > 1 and bounds[-1][1] - bounds[-1][0] == 1:
        (start, end), (_, last) = bounds[-2], bounds[-1]
        bounds[-2:] = [(start, end - 1), (end - 1, last)]
    return bounds


def log_softmax(logits: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Normalise logits (last axis) to log-probabilities, in float64 for summing."""
    values = logits.astype(np.float64)
    shifted = values - values.max(axis=-1, keepdims=True)
    result: np.ndarray[Any, Any] = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return result
