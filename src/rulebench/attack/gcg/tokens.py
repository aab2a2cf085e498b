"""Which tokens a suffix may hold, how candidates are drawn and which survive as text."""

from typing import Any

from rulebench.core.errors import ConfigError


def forbidden_token_ids(tokenizer: Any, vocab_size: int, allow_non_ascii: bool) -> list[int]:
    """Ids no candidate may use, sorted.

    Special and added tokens, ids past the tokenizer's vocabulary (padding rows of the
    embedding matrix) and, unless allowed, tokens whose text is not printable ASCII or is only
    whitespace.
    """
    forbidden = set(tokenizer.all_special_ids) | set(tokenizer.added_tokens_decoder)
    forbidden.update(range(len(tokenizer), vocab_size))
    if not allow_non_ascii:
        known = range(min(len(tokenizer), vocab_size))
        texts = tokenizer.batch_decode([[token_id] for token_id in known])
        forbidden.update(
            token_id
            for token_id, text in zip(known, texts, strict=True)
            if not (text.isascii() and text.isprintable() and text.strip())
        )
    return sorted(i for i in forbidden if i < vocab_size)


def top_substitutions(gradient: Any, forbidden: Any, topk: int) -> Any:
    """Per suffix position, the `topk` token ids whose one-hot gradient is most negative.

    Args:
        gradient: (suffix length, vocabulary) gradient of the loss.
        forbidden: a 1-d tensor of ids that may not be picked.
        topk: substitutions per position.
    """
    scores = -gradient.clone()
    scores[:, forbidden] = float("-inf")
    return scores.topk(topk, dim=1).indices


def sample_candidates(suffix_ids: Any, top_ids: Any, count: int, n_replace: int, rng: Any) -> Any:
    """`count` copies of the suffix, each with `n_replace` random positions changed.

    Each changed position gets one of its top substitutions; all draws come from the CPU
    generator `rng`.

    Raises:
        ConfigError: `n_replace` exceeds the suffix length.
    """
    import torch

    length, topk = top_ids.shape
    if n_replace > length:
        raise ConfigError(f"gcg: n_replace={n_replace} exceeds the suffix's {length} tokens")
    positions = torch.rand(count, length, generator=rng).argsort(dim=1)[:, :n_replace]
    choices = torch.randint(0, topk, (count, n_replace), generator=rng)
    top_cpu = top_ids.cpu()
    tokens = top_cpu[positions, choices]
    candidates = suffix_ids.cpu().repeat(count, 1)
    return candidates.scatter(1, positions, tokens)


def survives_text(tokenizer: Any, ids: list[int]) -> bool:
    """Whether decoding `ids` and tokenizing the text again gives back the same ids."""
    text = tokenizer.decode(ids)
    again: list[int] = tokenizer(text, add_special_tokens=False)["input_ids"]
    return again == ids


def keep_text_stable(tokenizer: Any, candidates: Any) -> Any:
    """The candidate rows (a 2-d tensor) that survive decode and re-encode unchanged."""
    kept = [row for row in candidates.tolist() if survives_text(tokenizer, row)]
    return candidates.new_tensor(kept).reshape(len(kept), candidates.shape[1])
