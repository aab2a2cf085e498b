"""What `rulebench serve` gives the playground, as one typed config.

Apart from the playground's state so that the serve options, the command line and the tests
can build it without the playground's sessions, models and conversation store.
"""

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from rulebench.core.wording import UpstreamText
from rulebench.models.registry import DEFAULT_MODEL
from rulebench.web.playground.quotas import Quotas


class PlaygroundConfig(BaseModel):
    """What `rulebench serve` gives the playground: its default model and its save folder."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    # Created on the first save.
    save_dir: Path = Path("rulebench-cases")
    """Folder the playground saves test cases to (its only writes; the store stays
    read-only)."""
    model: str = DEFAULT_MODEL
    """The playground's default model spec (see `rulebench models`). Default: the embedded
    SmolLM2-135M-Instruct on llama.cpp, loaded on the first game."""
    model_args: dict[str, str] = Field(default_factory=dict)
    """`-M key=value` for `model` only; never shown on a page (it may hold a key)."""
    base_url: str | None = None
    any_model: bool = True
    """Whether visitors may name another model than `model`. Off when others can reach the
    app: a spec can load any local file as a model or spend the server's API keys."""
    allowed_models: tuple[str, ...] = ()
    """With --allow-remote: another model spec visitors may pick besides --model (repeatable).
    No other spec is accepted."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Reply length limit; default a full scenarios run's, so saved cases replay alike."""
    upstream: UpstreamText | None = None
    """The RuLES clone given to `rulebench serve --upstream PATH`: the only place upstream's
    instruction text is read from (visitors choose the wording, never a path)."""
    quotas: Quotas = Field(default_factory=Quotas.unlimited)
    """Per-visitor allowances; none by default (loopback), `Quotas()` when others reach it."""
    show_paths: bool = True
    """Whether pages may show the server's paths; off when others reach it (names only)."""
