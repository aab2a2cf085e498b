"""One generation in a lane's slot: sampling its next token and telling when its reply ends.

Sampling happens here, in numpy, on the logits row of this sequence alone, with a generator
seeded per request: what a request samples never depends on which requests share its steps.
"""

import random
from typing import Any

import numpy as np

from rulebench.core.messages import GenerateConfig
from rulebench.models.llamacpp.batch_requests import GenerationRequest
from rulebench.models.local_chat import Generated, cut_at_stop

Llama = Any
"""llama_cpp.Llama; typed loosely because llama_cpp is imported only where it is used."""


def sample_token(
    logits: np.ndarray[Any, Any], config: GenerateConfig, rng: np.random.Generator | None
) -> int:
    """Pick the next token: the most likely at temperature 0, else from the top-p nucleus."""
    if config.temperature <= 0 or rng is None:
        return int(np.argmax(logits))
    scaled = logits.astype(np.float64) / config.temperature
    probabilities = np.exp(scaled - scaled.max())
    probabilities /= probabilities.sum()
    order = np.argsort(-probabilities, kind="stable")
    cumulative = np.cumsum(probabilities[order])
    if config.top_p < 1.0:
        # The smallest set of most likely tokens whose mass reaches top_p.
        kept = int(np.searchsorted(cumulative, config.top_p)) + 1
        order, cumulative = order[:kept], cumulative[:kept]
    drawn = rng.random() * cumulative[-1]
    return int(order[min(int(np.searchsorted(cumulative, drawn, side="right")), len(order) - 1)])


class Decoding:
    """A generation request in a slot: the reply so far, and whether it has ended."""

    def __init__(self, request: GenerationRequest, slot: int, n_ctx: int) -> None:
        self.request = request
        self.slot = slot
        config = request.config
        self.budget = min(config.max_tokens, n_ctx - len(request.tokens))
        seed = config.seed if config.seed is not None else random.getrandbits(64)
        self._rng = np.random.default_rng(seed) if config.temperature > 0 else None
        self.completion: list[int] = []
        self._raw = b""
        self.text = ""
        self.finish_reason = "length"
        self.done = False

    @property
    def next_position(self) -> int:
        """The position of the last sampled token, which the next step decodes."""
        return len(self.request.tokens) + len(self.completion) - 1

    def take(self, logits: np.ndarray[Any, Any], llm: Llama, vocab: Any) -> None:
        """Sample the next token from this sequence's logits and note whether the reply ended."""
        import llama_cpp

        token = sample_token(logits, self.request.config, self._rng)
        # End-of-generation covers every end token the vocabulary marks (<|im_end|>, <|eot_id|>).
        if llama_cpp.llama_vocab_is_eog(vocab, token):
            self.finish_reason, self.done = "stop", True
            return
        self.completion.append(token)
        self._raw += llm.detokenize([token])
        self.text, stopped = cut_at_stop(
            self._raw.decode("utf-8", errors="ignore"), self.request.config.stop
        )
        if stopped:
            self.finish_reason, self.done = "stop", True
        elif len(self.completion) >= self.budget:
            self.done = True

    def result(self) -> Generated:
        """The finished reply and its token counts."""
        return Generated(
            text=self.text,
            prompt_tokens=len(self.request.tokens),
            completion_tokens=len(self.completion),
            finish_reason=self.finish_reason,
        )
