"""The settings of a GCG search, named as nanogcg 0.3.0 names them, and its two presets.

Keeping nanogcg's option names lets a user port a config unchanged (facts from
shared/spec/scenarios.md, GCG section); rulebench's own code does the search. The defaults
are the quick preset, sized for a CPU; `GcgConfig.preset("paper")` is the paper's search.
"""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SUFFIX_LENGTH = 20
"""Tokens of the default initial suffix (nanogcg's)."""
DEFAULT_SUFFIX_INIT = " ".join(["x"] * SUFFIX_LENGTH)
"""nanogcg's initial suffix: 20 x's separated by spaces (20 tokens on most tokenizers)."""

Preset = Literal["quick", "paper"]
PRESETS: dict[Preset, dict[str, Any]] = {
    # nanogcg's 250 steps with an eighth of its candidates, so a quick attack on the embedded
    # model ends in minutes on a small CPU (docs/performance.md).
    "quick": {},
    # The paper's search: 500 steps, 512 candidates a step from the top-256 substitutions.
    "paper": {"num_steps": 500, "search_width": 512, "topk": 256},
}
"""Named searches: the changes each makes to the defaults (the quick preset)."""


class GcgConfig(BaseModel):
    """How a GCG search runs: its length, candidate sampling, loss and token filters.

    Each field's docstring is also the help of the option that fills it
    (`use_attribute_docstrings`).
    """

    model_config = ConfigDict(
        frozen=True, extra="forbid", allow_inf_nan=False, use_attribute_docstrings=True
    )

    num_steps: int = Field(default=250, ge=1)
    """Optimisation steps: one gradient and one candidate evaluation each."""
    optim_str_init: str = DEFAULT_SUFFIX_INIT
    """The suffix the search starts from; its token count is the suffix length."""
    search_width: int = Field(default=64, ge=1)
    """Candidates sampled per step (nanogcg: 512, the paper preset's)."""
    batch_size: int | None = Field(default=None, ge=1)
    """Candidates per forward pass at most; None: no cap (with the prefix cache a step runs
    one pass per group of candidates whose first changed token is near, else one in all)."""
    topk: int = Field(default=64, ge=1)
    """Substitutions per suffix position: the tokens with the most negative gradient
    (nanogcg: 256, the paper preset's)."""
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
    """Seeds candidate sampling and the scenario instances attacked: a seed and a model give
    one trajectory on the CPU."""

    @classmethod
    def preset(cls, name: Preset = "quick", **changes: Any) -> "GcgConfig":
        """The named search, with `changes` (nanogcg option names) on top.

        Raises:
            pydantic.ValidationError: an unknown option or a value out of range.
        """
        return cls.model_validate(PRESETS[name] | changes)


def search_size(config: GcgConfig) -> str:
    """A search's size in words: its steps, candidates and top-k, as help and run lines say."""
    return f"{config.num_steps} steps, {config.search_width} candidates from the top {config.topk}"
