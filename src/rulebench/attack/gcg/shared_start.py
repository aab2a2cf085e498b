"""Candidate losses that run only what a candidate does not share with the current suffix.

Every candidate is the current suffix with a few tokens changed, so up to its first change it
reads exactly as the current suffix does, and a causal model computes the same keys and values
there. The current suffix runs once per step after `before`'s cache; each candidate then runs
from its first change on, after that cache cut at the change. With one token changed at a
uniformly drawn position, a candidate runs about half its suffix fewer tokens, and its losses
are those of a full pass up to float rounding. Candidates are grouped by their first change,
so each forward pass has one prefix length. On the CPU the rows of a pass read the prefix
once (prefix_attention) where the model's attention allows it; elsewhere each row gets a copy.
"""

from collections.abc import Sequence
from typing import Any

from rulebench.attack.gcg.config import GcgConfig
from rulebench.attack.gcg.loss import PreparedPrompt, batch_cache, target_logits, target_losses
from rulebench.attack.gcg.prefix_attention import prefix_forward, prefix_layers
from rulebench.models.hf.loading import LoadedModel

MIN_ROWS_PER_PASS = 16
"""Groups of candidates run together until a pass has this many rows, from the earliest first
change among them: a pass of a few rows costs nearly as much as one of a dozen (the weights
are read once per pass either way), so at small widths fewer, longer passes win."""


def first_changes(candidates: Any, suffix: Any) -> Any:
    """Per candidate row, the first position where it differs from `suffix`.

    A row equal to the suffix gets its last position, so every pass runs at least one token.
    """
    import torch

    last = suffix.shape[0] - 1
    changed = candidates != suffix
    first = changed.to(torch.uint8).argmax(dim=1)
    return torch.where(changed.any(dim=1), first, last).clamp(max=last)


def passes(first: Any, min_rows: int) -> list[tuple[int, Any]]:
    """The passes of a step: (first position run, candidate rows), in order of position.

    Candidates that first change at the same position share a pass; neighbouring positions
    join while a pass has fewer than `min_rows` rows (it then starts at the earliest).
    """
    found: list[tuple[int, Any]] = []
    pending: list[Any] = []
    start = 0
    for position in first.unique().tolist():
        if not pending:
            start = int(position)
        pending.append((first == position).nonzero().flatten())
        if sum(len(rows) for rows in pending) >= min_rows:
            found.append((start, _cat_rows(pending)))
            pending = []
    if pending:
        found.append((start, _cat_rows(pending)))
    return found


def _cat_rows(pieces: list[Any]) -> Any:
    import torch

    return torch.cat(pieces)


def suffix_cache(loaded: LoadedModel, prompt: PreparedPrompt, suffix: Any) -> Any:
    """The batch-1 key/value cache of `before` followed by the whole current suffix."""
    cache = batch_cache(loaded, prompt.prefix_cache, 1)
    output = loaded.model(
        input_ids=suffix.unsqueeze(0), past_key_values=cache, use_cache=True, logits_to_keep=1
    )
    return output.past_key_values


def _tail_ids(prompt: PreparedPrompt, middle: Any) -> Any:
    """The ids a pass runs after its prefix: the rest of the suffix, `after`, the target."""
    import torch

    rows = middle.shape[0]
    tail = [prompt.after.expand(rows, -1), prompt.target[:, :-1].expand(rows, -1)]
    return torch.cat([middle, *tail], dim=1)


def shares_prefix(loaded: LoadedModel, prompt: PreparedPrompt) -> bool:
    """Whether prefix attention gives this model's cached-pass logits (to 1e-4) on the CPU.

    Checked once on the prompt itself (two rows of `after` and the target after `before`),
    so a model whose layers ignore the prefix, or take masks, windows or caps it does not
    apply, falls back to copies instead of returning other losses.
    """
    import torch

    cache = prompt.prefix_cache
    if loaded.device != "cpu" or cache is None:
        return False
    length = cache.get_seq_length()
    ids = torch.cat([prompt.after, prompt.target], dim=1).expand(2, -1)
    with torch.inference_mode():
        try:
            found = prefix_forward(loaded, ids, prefix_layers(cache, length), ids.shape[1])
        except (NotImplementedError, KeyError, TypeError, RuntimeError, ValueError):
            return False
        copies = batch_cache(loaded, cache, 2, length)
        expected = loaded.model(input_ids=ids, past_key_values=copies, use_cache=True).logits
    return bool(torch.allclose(found, expected, atol=1e-4, rtol=1e-4))


class SharedStartLosses:
    """Evaluates a step's candidates from their first change on (see the module's text)."""

    def __init__(
        self, loaded: LoadedModel, prompts: Sequence[PreparedPrompt], config: GcgConfig,
        min_rows: int = MIN_ROWS_PER_PASS,
    ) -> None:  # fmt: skip
        """Check once whether the model's attention can read the prefix once per pass."""
        self._min_rows = min_rows
        self._loaded = loaded
        self._prompts = prompts
        self._batch_size = config.batch_size
        self._alpha = config.mellowmax_alpha if config.use_mellowmax else None
        self.reads_prefix_once = all(shares_prefix(loaded, p) for p in prompts)

    def __call__(self, candidates: Any, suffix: Any) -> tuple[Any, Any]:
        """Each candidate's mean target loss over prompts, and whether it reaches every target.

        The same figures as `candidate_losses` up to float rounding; the config's batch_size
        caps the rows of a pass (None: all candidates that first change at one position).
        """
        import torch

        with torch.inference_mode():
            count = candidates.shape[0]
            losses = torch.zeros(count, device=self._loaded.device)
            reached = torch.ones(count, dtype=torch.bool, device=self._loaded.device)
            first = first_changes(candidates, suffix)
            groups = passes(first, self._min_rows)
            for prompt in self._prompts:
                cache = suffix_cache(self._loaded, prompt, suffix)
                before = cache.get_seq_length() - suffix.shape[0]
                for start, rows in groups:
                    for chunk in rows.split(self._batch_size or count):
                        middle = candidates[chunk, start:]
                        logits = self._logits(prompt, middle, cache, before + start)
                        losses[chunk] += target_losses(logits, prompt.target, self._alpha)
                        reached[chunk] &= (logits.argmax(dim=2) == prompt.target).all(dim=1)
        return losses / len(self._prompts), reached

    def _logits(self, prompt: PreparedPrompt, middle: Any, cache: Any, length: int) -> Any:
        """Target logits of `middle` rows after the cache's first `length` positions."""
        if self.reads_prefix_once and length > 0:
            ids = _tail_ids(prompt, middle)
            layers = prefix_layers(cache, length)
            return prefix_forward(self._loaded, ids, layers, prompt.target.shape[1])
        copies = batch_cache(self._loaded, cache, middle.shape[0], length)
        return target_logits(self._loaded, prompt, middle, copies)
