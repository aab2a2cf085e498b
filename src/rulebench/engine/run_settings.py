"""The run settings every run shares, declared once: the CLI, API and experiment files read them.

Each field's docstring is its help text (`use_attribute_docstrings`): `rulebench run --help`
shows it, and the Python API's `RunOptions` and experiment files' `[defaults]` are checked
against these fields by the tests, so a setting is added, bounded or renamed here only.
"""

from pydantic import BaseModel, ConfigDict, Field

from rulebench.core.messages import NO_REASONING_OPTIONS, ReasoningOptions
from rulebench.core.shards import Shard
from rulebench.engine.dispatch_order import DispatchOrder


class RunSettings(BaseModel):
    """How to run, beside the task's own config: the settings every run shares.

    The CLI fills it from the options every `run` command takes, the Python API from its
    keyword arguments, an experiment file from `[defaults]` and `[[tasks]]`; None means the
    task's own default.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    model_args: dict[str, str] = Field(default_factory=dict)
    """Backend setting key=value, repeatable (e.g. -M timeout_s=60 -M n_ctx=8192)."""
    base_url: str | None = None
    """Endpoint of an OpenAI-compatible server (overrides *_BASE_URL); repeat or comma-separate
    to spread requests over several replicas."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Reply length limit in tokens (default: the task's)."""
    temperature: float | None = Field(default=None, ge=0.0)
    """Sampling temperature (default: the task's, 0 = greedy)."""
    sampling_seed: int | None = 0
    """Seed of the model's sampling, apart from the data seed; each --repeats repeat derives
    its own from it."""
    concurrency: int | None = Field(default=None, ge=1)
    """Items in flight at once."""
    limit: int | None = Field(default=None, ge=0)
    """Run only the first N items."""
    use_cache: bool = True
    """Read and write the response cache."""
    shard: Shard | None = None
    """Run only shard I of N (1-based) of the items, split by item id; `auto` reads a Slurm job
    array's index and count, `auto/N` a Kubernetes indexed Job's, in JOB_COMPLETION_INDEX. Join
    the shards' stores with `rulebench runs merge`."""
    reasoning: ReasoningOptions = NO_REASONING_OPTIONS
    """The thinking switch, reasoning effort and think tags (`core.messages.ReasoningOptions`)."""
    order: DispatchOrder = "given"
    """The order items are sent in: `given` (the task's) or `grouped` (items sharing their
    beginning one after another, so a served model's prefix cache keeps them). Changes no
    prompt and no id; a response-cache hit may land on another of two identical requests."""
