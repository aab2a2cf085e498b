"""The torch side of GCG: target losses of candidate suffixes and the one-hot gradient.

Inputs read [before][suffix][after][target]. With the prefix cache, `before` runs once per
prompt and each forward pass starts from a copy of its key/value cache: transformers' DynamicCache
grows in place during a forward pass, so one shared cache would be spoilt by the first batch.
Only the logits that predict target tokens are computed (`logits_to_keep`): on a 49k-token
vocabulary the output projection is a large share of a small model's work. The last target
token predicts nothing, so it is never run: the logits before it are the same without it.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rulebench.attack.gcg.prompt import PromptTokens
from rulebench.models.hf.loading import LoadedModel


@dataclass(frozen=True)
class PreparedPrompt:
    """A prompt's token tensors on the model's device and, when used, its prefix cache."""

    before: Any
    after: Any
    target: Any
    prefix_cache: Any | None
    """The DynamicCache of `before` (batch 1); never passed to a model itself, only copied."""


def prepare_prompt(loaded: LoadedModel, tokens: PromptTokens, use_prefix_cache: bool) -> Any:
    """Move a prompt's ids to the device and run `before` once when the cache is used."""
    import torch

    def tensor(ids: tuple[int, ...]) -> Any:
        return torch.tensor([ids], dtype=torch.long, device=loaded.device)

    before = tensor(tokens.before)
    cache = None
    if use_prefix_cache and tokens.before:
        with torch.no_grad():
            cache = loaded.model(input_ids=before, use_cache=True).past_key_values
    return PreparedPrompt(before, tensor(tokens.after), tensor(tokens.target), cache)


def batch_cache(
    loaded: LoadedModel, cache: Any | None, rows: int, length: int | None = None
) -> Any:
    """A fresh DynamicCache holding a batch-1 cache's first `length` positions once per row.

    None when there is no cache (or nothing to keep), so the caller runs `before` itself.
    """
    from transformers import DynamicCache

    if cache is None or length == 0:
        return None
    layers = [
        (
            layer.keys[:, :, :length].expand(rows, -1, -1, -1),
            layer.values[:, :, :length].expand(rows, -1, -1, -1),
        )
        for layer in cache.layers
    ]
    return DynamicCache(layers, config=loaded.model.config)


def target_losses(logits: Any, target: Any, mellowmax_alpha: float | None) -> Any:
    """Per row, the cross-entropy (or mellowmax) of the target under logits predicting it.

    Args:
        logits: (rows, target length, vocabulary), position i predicting target token i.
        target: (1, target length) ids.
        mellowmax_alpha: None for cross-entropy, else mellowmax's alpha.
    """
    import math

    import torch

    target_rows = target.expand(logits.shape[0], -1)
    if mellowmax_alpha is None:
        # Over (rows x positions, vocabulary): the softmax runs along contiguous memory, several
        # times faster on the CPU than along the vocabulary dimension of (rows, vocab, positions).
        per_token = torch.nn.functional.cross_entropy(
            logits.flatten(0, 1).float(), target_rows.flatten(), reduction="none"
        )
        return per_token.view(logits.shape[0], -1).mean(dim=1)
    chosen = -logits.float().gather(2, target_rows.unsqueeze(2)).squeeze(2)
    count = math.log(chosen.shape[1])
    return (torch.logsumexp(mellowmax_alpha * chosen, dim=1) - count) / mellowmax_alpha


def target_logits(loaded: LoadedModel, prompt: PreparedPrompt, middle: Any, cache: Any) -> Any:
    """Logits predicting the target after `middle` (rows of suffix ids or suffix embeddings).

    `cache` holds, once per row, the tokens before `middle`; None runs `before` in the pass.
    """
    rows = middle.shape[0]
    target_length = prompt.target.shape[1]
    tail = [prompt.after.expand(rows, -1), prompt.target[:, :-1].expand(rows, -1)]
    head = [] if cache is not None else [prompt.before.expand(rows, -1)]
    if middle.is_floating_point():
        embed = loaded.model.get_input_embeddings()
        pieces = [embed(p) for p in head] + [middle] + [embed(p) for p in tail]
        inputs = {"inputs_embeds": _cat(pieces)}
    else:
        inputs = {"input_ids": _cat([*head, middle, *tail])}
    output = loaded.model(
        **inputs, past_key_values=cache, use_cache=cache is not None,
        logits_to_keep=target_length,
    )  # fmt: skip
    return output.logits


def _prefix_logits(loaded: LoadedModel, prompt: PreparedPrompt, middle: Any) -> Any:
    """`target_logits` of `middle` placed right after `before` (from its cache when kept)."""
    cache = batch_cache(loaded, prompt.prefix_cache, middle.shape[0])
    return target_logits(loaded, prompt, middle, cache)


def _cat(pieces: list[Any]) -> Any:
    import torch

    return torch.cat(pieces, dim=1)


def suffix_gradient(
    loaded: LoadedModel, prompts: Sequence[PreparedPrompt], suffix: Any, alpha: float | None
) -> Any:
    """The gradient, summed over prompts, of the target loss w.r.t. the suffix's one-hot rows.

    Returns a (suffix length, vocabulary) tensor: a token's entry estimates how much the loss
    would change by putting that token at that position.
    """
    import torch

    weights = loaded.model.get_input_embeddings().weight
    one_hot = torch.nn.functional.one_hot(suffix, weights.shape[0]).to(weights.dtype)
    one_hot.requires_grad_(True)
    embeds = (one_hot @ weights).unsqueeze(0)
    total = sum(
        target_losses(_prefix_logits(loaded, p, embeds), p.target, alpha).sum() for p in prompts
    )
    (gradient,) = torch.autograd.grad(total, [one_hot])
    return gradient


def candidate_losses(
    loaded: LoadedModel, prompts: Sequence[PreparedPrompt], candidates: Any, batch_size: int,
    alpha: float | None,
) -> tuple[Any, Any]:  # fmt: skip
    """Each candidate's mean target loss over prompts, and whether it reaches every target.

    A candidate reaches a target when each target token is the argmax after the tokens before
    it, i.e. greedy decoding would reproduce the target.
    """
    import torch

    with torch.inference_mode():
        losses = torch.zeros(candidates.shape[0], device=loaded.device)
        reached = torch.ones(candidates.shape[0], dtype=torch.bool, device=loaded.device)
        for start in range(0, candidates.shape[0], batch_size):
            rows = slice(start, start + batch_size)
            for prompt in prompts:
                logits = _prefix_logits(loaded, prompt, candidates[rows])
                losses[rows] += target_losses(logits, prompt.target, alpha)
                reached[rows] &= (logits.argmax(dim=2) == prompt.target).all(dim=1)
    return losses / len(prompts), reached
