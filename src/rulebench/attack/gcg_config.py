"""The settings of a GCG search, named and defaulted as nanogcg 0.3.0 names them.

Keeping nanogcg's option names and defaults lets a user port a config unchanged (facts from
shared/spec/scenarios.md, GCG section); rulebench's own code does the search.
"""

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_SUFFIX_INIT = " ".join(["x"] * 20)
"""nanogcg's initial suffix: 20 x's separated by spaces (20 tokens on most tokenizers)."""


class GcgConfig(BaseModel):
    """How a GCG search runs: its length, candidate sampling, loss and token filters."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    num_steps: int = Field(default=250, ge=1)
    """Optimisation steps: one gradient and one candidate evaluation each."""
    optim_str_init: str = DEFAULT_SUFFIX_INIT
    """The suffix the search starts from; its token count is the suffix length."""
    search_width: int = Field(default=512, ge=1)
    """Candidates sampled per step."""
    batch_size: int | None = Field(default=None, ge=1)
    """Candidates per forward pass; None evaluates all of a step's candidates at once."""
    topk: int = Field(default=256, ge=1)
    """Substitutions per suffix position: the tokens with the most negative gradient."""
    n_replace: int = Field(default=1, ge=1)
    """Suffix positions each candidate changes (at most the suffix's token count)."""
    buffer_size: int = Field(default=0, ge=0)
    """Best suffixes kept; each step starts from the best. 0: always move to the step's best
    candidate, even when it is worse than the current suffix (plain GCG)."""
    use_mellowmax: bool = False
    """Use the mellowmax of the target tokens' negative logits instead of cross-entropy."""
    mellowmax_alpha: float = Field(default=1.0, gt=0)
    """Mellowmax's temperature: large values approach the max, small ones the mean."""
    early_stop: bool = False
    """Stop once greedy decoding after the best suffix reproduces every target exactly."""
    use_prefix_cache: bool = True
    """Run the tokens before the suffix once and reuse their key/value cache for candidates."""
    allow_non_ascii: bool = False
    """Let non-ASCII and non-printable tokens into the suffix (special tokens never are)."""
    filter_ids: bool = True
    """Drop candidates whose decoded text does not re-tokenize to the same ids: a suffix must
    survive being pasted into a prompt as text."""
    add_space_before_target: bool = False
    """Prepend a space to each target string before tokenizing it."""
    seed: int = Field(default=0, ge=0)
    """Seeds the candidate sampler: a seed and a model give one trajectory on the CPU."""
