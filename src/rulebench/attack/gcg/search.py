"""Greedy Coordinate Gradient over one or more prompts: a step-wise, resumable search.

A step takes the gradient of the target loss w.r.t. the one-hot suffix, samples `search_width`
candidates from each position's top-k substitutions, drops those that do not survive as text,
evaluates the rest and moves to the best (or to the best of a buffer). With several prompts the
suffix is universal: the loss is the mean over prompts. A step's randomness comes from a
generator seeded with (seed, step), so a saved `GcgState` resumes the very trajectory an
uninterrupted run takes, and the state stays small, plain JSON.
"""

import logging
from collections.abc import Iterator, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from rulebench.attack.gcg.config import GcgConfig
from rulebench.attack.gcg.loss import candidate_losses, prepare_prompt, suffix_gradient
from rulebench.attack.gcg.prompt import AttackPrompt, encode, tokenize_prompt
from rulebench.attack.gcg.shared_start import SharedStartLosses
from rulebench.attack.gcg.tokens import (
    forbidden_token_ids,
    keep_text_stable,
    sample_candidates,
    top_substitutions,
)
from rulebench.core.errors import ConfigError
from rulebench.models.hf.loading import LoadedModel

logger = logging.getLogger(__name__)

_STEP_SEED_STRIDE = 1_000_003
"""Spreads (seed, step) pairs over distinct generator seeds."""


class ScoredSuffix(BaseModel):
    """A suffix's token ids and its target loss (an entry of the best-suffix buffer)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    loss: float
    ids: tuple[int, ...]


class GcgState(BaseModel):
    """Where a search stands after `step` steps: all a resumed run needs, as plain JSON."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int
    """Steps done."""
    suffix_ids: tuple[int, ...]
    """The suffix the next step starts from."""
    suffix: str
    loss: float
    """The target loss of `suffix_ids`."""
    best: ScoredSuffix
    """The lowest-loss suffix seen so far, the initial one included."""
    losses: tuple[float, ...] = ()
    """The loss of the suffix each step moved to, one per step."""
    buffer: tuple[ScoredSuffix, ...] = ()
    """The best suffixes kept when buffer_size > 0, lowest loss first."""
    is_target_reached: bool = False
    """Greedy decoding after `suffix_ids` reproduces every target."""


class StepResult(BaseModel):
    """What one step did, and the state after it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    step: int
    """1 for the first step."""
    loss: float
    suffix: str
    candidates_kept: int
    """Candidates left to evaluate after the text filter (at most search_width)."""
    state: GcgState


def check_initial_suffix(loaded: LoadedModel, text: str) -> tuple[int, ...]:
    """The initial suffix's token ids.

    Raises:
        ConfigError: the text tokenizes to nothing.
    """
    ids = encode(loaded, text)
    if not ids:
        raise ConfigError(f"gcg: optim_str_init {text!r} tokenizes to nothing")
    return ids


class GcgAttack:
    """A GCG search on one loaded hf model against fixed prompts."""

    def __init__(
        self,
        loaded: LoadedModel,
        prompts: Sequence[AttackPrompt],
        config: GcgConfig,
        forbidden: Any | None = None,
    ) -> None:
        """Tokenize the prompts, run their prefixes and list the forbidden tokens.

        `forbidden` reuses another attack's token filter (see `retarget`).

        Raises:
            ConfigError: no prompts, or a prompt that cannot be attacked (see tokenize_prompt).
        """
        import torch

        if not prompts:
            raise ConfigError("gcg: give at least one prompt to attack")
        self._loaded = loaded
        self._config = config
        self._alpha = config.mellowmax_alpha if config.use_mellowmax else None
        tokens = [tokenize_prompt(loaded, p, config.add_space_before_target) for p in prompts]
        self._prompts = [prepare_prompt(loaded, t, config.use_prefix_cache) for t in tokens]
        self._shared = SharedStartLosses(loaded, self._prompts, config)
        if forbidden is None:
            vocab_size = loaded.model.get_input_embeddings().weight.shape[0]
            ids = forbidden_token_ids(loaded.tokenizer, vocab_size, config.allow_non_ascii)
            forbidden = torch.tensor(ids, dtype=torch.long, device=loaded.device)
        self._forbidden = forbidden

    def retarget(self, prompts: Sequence[AttackPrompt]) -> "GcgAttack":
        """The same search against other prompts (re-sampled instances).

        The token filter, which reads the whole vocabulary, is shared rather than rebuilt.
        """
        return GcgAttack(self._loaded, prompts, self._config, self._forbidden)

    def initial_state(self) -> GcgState:
        """The state before step 1: the initial suffix and its loss.

        Raises:
            ConfigError: the initial suffix tokenizes to nothing.
        """
        ids = check_initial_suffix(self._loaded, self._config.optim_str_init)
        losses, reached = self.evaluate([list(ids)])
        start = ScoredSuffix(loss=losses[0], ids=ids)
        buffer = (start,) if self._config.buffer_size > 0 else ()
        return GcgState(
            step=0, suffix_ids=ids, suffix=self.decode(ids), loss=start.loss, best=start,
            buffer=buffer, is_target_reached=reached[0],
        )  # fmt: skip

    def run_steps(self, state: GcgState, count: int) -> Iterator[StepResult]:
        """Run up to `count` steps from `state`; each result carries the state to save.

        Stops early at num_steps or, with early_stop, once the targets are reached.
        """
        for _ in range(count):
            if state.step >= self._config.num_steps:
                return
            if self._config.early_stop and state.is_target_reached:
                return
            result = self.step(state)
            state = result.state
            yield result

    def step(self, state: GcgState) -> StepResult:
        """One GCG step from `state`."""
        import torch

        config = self._config
        suffix = torch.tensor(state.suffix_ids, dtype=torch.long, device=self._loaded.device)
        gradient = suffix_gradient(self._loaded, self._prompts, suffix, self._alpha)
        top_ids = top_substitutions(gradient, self._forbidden, config.topk)
        rng = torch.Generator().manual_seed(config.seed * _STEP_SEED_STRIDE + state.step)
        candidates = sample_candidates(suffix, top_ids, config.search_width, config.n_replace, rng)
        if config.filter_ids:
            candidates = keep_text_stable(self._loaded.tokenizer, candidates)
        if candidates.shape[0] == 0:
            logger.warning("gcg step %d: no candidate survived re-tokenization", state.step + 1)
            unchanged = {"step": state.step + 1, "losses": (*state.losses, state.loss)}
            return self._result(state.model_copy(update=unchanged), 0)
        losses, reached = self._evaluate_step(candidates.to(self._loaded.device), suffix)
        best = int(losses.argmin())
        chosen = ScoredSuffix(loss=float(losses[best]), ids=tuple(candidates[best].tolist()))
        return self._result(self._advance(state, chosen, bool(reached[best])), len(candidates))

    def evaluate(self, suffixes: Sequence[Sequence[int]]) -> tuple[list[float], list[bool]]:
        """Each suffix's mean target loss over the prompts, and whether it reaches the targets.

        Suffixes must be of one length; a suffix reaches the targets when greedy decoding after
        it reproduces every prompt's target.
        """
        import torch

        rows = torch.tensor(suffixes, dtype=torch.long, device=self._loaded.device)
        losses, reached = self._evaluate_tensor(rows)
        return losses.tolist(), reached.tolist()

    def decode(self, ids: Sequence[int]) -> str:
        """A suffix's text."""
        text: str = self._loaded.tokenizer.decode(list(ids))
        return text

    def _evaluate_tensor(self, candidates: Any) -> tuple[Any, Any]:
        batch_size = self._config.batch_size or candidates.shape[0]
        return candidate_losses(self._loaded, self._prompts, candidates, batch_size, self._alpha)

    def _evaluate_step(self, candidates: Any, suffix: Any) -> tuple[Any, Any]:
        """A step's candidate losses and target checks, each distinct candidate run once.

        Sampling with replacement repeats some candidates; a repeat gets its first copy's
        figures, so the step's argmin (its first lowest loss) is the one a pass over every
        row finds.
        """
        import torch

        distinct, copies = torch.unique(candidates, dim=0, return_inverse=True)
        if not self._config.use_prefix_cache:
            losses, reached = self._evaluate_tensor(distinct)
        else:
            losses, reached = self._shared(distinct, suffix)
        return losses[copies], reached[copies]

    def _advance(self, state: GcgState, chosen: ScoredSuffix, reached: bool) -> GcgState:
        """Move to the step's best candidate, or with a buffer to the buffer's best."""
        size = self._config.buffer_size
        buffer = state.buffer
        current = chosen
        if size > 0:
            if len(buffer) < size or chosen.loss < buffer[-1].loss:
                buffer = tuple(sorted((*buffer, chosen), key=lambda s: s.loss)[:size])
            current = buffer[0]
            # The buffer's best may be an older suffix whose target check this step did not see.
            reached = reached and current == chosen
        best = chosen if chosen.loss < state.best.loss else state.best
        return GcgState(
            step=state.step + 1, suffix_ids=current.ids, suffix=self.decode(current.ids),
            loss=current.loss, best=best, losses=(*state.losses, current.loss), buffer=buffer,
            is_target_reached=reached,
        )  # fmt: skip

    def _result(self, state: GcgState, kept: int) -> StepResult:
        return StepResult(
            step=state.step, loss=state.loss, suffix=state.suffix, candidates_kept=kept,
            state=state,
        )  # fmt: skip
