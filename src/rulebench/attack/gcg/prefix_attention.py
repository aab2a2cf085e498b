"""Attention to a cached prefix that every row of a batch shares, read once instead of per row.

Candidate passes start from one prefix (the prompt's `before` and the suffix up to the first
change). A DynamicCache needs it once per row, so each layer copies it to every row (and
transformers' sdpa path then repeats it per query head) before attention reads those copies.
Here attention runs in two parts that each use torch's CPU flash kernel: all rows' queries
against the one prefix (rows folded into the query length, so nothing is copied), and each
row's queries causally against its own new tokens; the two are joined by their log-sum-exps,
which is the softmax over both key sets. The pass registers this as a transformers attention
function and passes the prefix through the model's keyword arguments; a search checks on a
real pass that a model's layers honour it before relying on it (shared_start).
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from rulebench.models.hf.loading import LoadedModel

_NAME = "rulebench_gcg_shared_prefix"
"""The name the attention function is registered under in transformers."""
_PREFIX_KWARG = "gcg_shared_prefix"
"""The model keyword argument that carries each layer's (keys, values) of the prefix."""


def _flash(query: Any, key: Any, value: Any, is_causal: bool, scale: float | None) -> Any:
    import torch

    flash = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu
    return flash(query, key, value, 0.0, is_causal, scale=scale)


def shared_prefix_attention(
    module: Any, query: Any, key: Any, value: Any, attention_mask: Any, **kwargs: Any
) -> tuple[Any, None]:
    """A transformers attention function: softmax over the shared prefix and the row's tokens.

    Args:
        module: the attention layer (its `layer_idx` picks the prefix's layer).
        query: (rows, heads, new tokens, head size), rotated for the new tokens' positions.
        key: (rows, key/value heads, new tokens, head size).
        value: shaped as `key`.
        attention_mask: None (no mask function is registered, so the model makes none).
        **kwargs: the prefix under `gcg_shared_prefix`; `scaling`; the model's others.
    """
    import torch

    if attention_mask is not None or kwargs.get("sliding_window") or kwargs.get("softcap"):
        raise NotImplementedError("gcg: shared-prefix attention takes no mask of any kind")
    prefix_key, prefix_value = kwargs[_PREFIX_KWARG][module.layer_idx]
    rows, heads, length, size = query.shape
    kv_heads = key.shape[1]
    groups = heads // kv_heads
    folded = query.reshape(rows, kv_heads, groups * length, size).transpose(0, 1)
    folded = folded.reshape(1, kv_heads, rows * groups * length, size)
    scale = kwargs.get("scaling")
    shared, shared_lse = _flash(folded, prefix_key, prefix_value, False, scale)
    shared = shared.view(kv_heads, rows, groups * length, size).transpose(0, 1)
    shared_lse = shared_lse.view(kv_heads, rows, groups * length).transpose(0, 1)
    own_key = key.repeat_interleave(groups, dim=1) if groups > 1 else key
    own_value = value.repeat_interleave(groups, dim=1) if groups > 1 else value
    own, own_lse = _flash(query, own_key, own_value, True, scale)
    own = own.reshape(rows, kv_heads, groups * length, size)
    own_lse = own_lse.reshape(rows, kv_heads, groups * length)
    total = torch.logaddexp(shared_lse, own_lse)
    joined = shared * (shared_lse - total).exp().unsqueeze(3)
    joined += own * (own_lse - total).exp().unsqueeze(3)
    return joined.reshape(rows, heads, length, size).transpose(1, 2).contiguous(), None


@contextmanager
def _attending_to_prefix(model: Any) -> Iterator[None]:
    """Run the model's attention as shared_prefix_attention inside the block."""
    from transformers import AttentionInterface

    AttentionInterface.register(_NAME, shared_prefix_attention)  # idempotent
    before = model.config._attn_implementation
    model.config._attn_implementation = _NAME
    try:
        yield
    finally:
        model.config._attn_implementation = before


def prefix_layers(cache: Any, length: int) -> list[tuple[Any, Any]]:
    """Each layer's (keys, values) of a batch-1 cache's first `length` positions."""
    return [(layer.keys[:, :, :length], layer.values[:, :, :length]) for layer in cache.layers]


def prefix_forward(
    loaded: LoadedModel, ids: Any, layers: Sequence[tuple[Any, Any]], logits_to_keep: int
) -> Any:
    """The logits of `ids` rows that follow the prefix in `layers` (it is not copied per row)."""
    import torch

    start = layers[0][0].shape[2]
    positions = torch.arange(start, start + ids.shape[1], device=ids.device)
    with _attending_to_prefix(loaded.model):
        output = loaded.model(
            input_ids=ids, position_ids=positions.expand(ids.shape[0], -1), use_cache=False,
            logits_to_keep=logits_to_keep, **{_PREFIX_KWARG: layers},
        )  # fmt: skip
    return output.logits
