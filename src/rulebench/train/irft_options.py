"""The options of `rulebench train irft` as a front end takes them, turned into a run's config.

A front end fills `IrftOptions` with what its user gave and calls `prepare_irft`: a new run's
options are validated into an `IrftConfig` (the defaults are its own), and `--resume RUN`
reads the stored run's config instead, so the command line and a Python caller train the
same run from the same options.
"""

from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from rulebench.core.errors import ConfigError
from rulebench.core.validation import validate_into
from rulebench.train.irft_config import DEFAULT_MAX_STEPS, IrftConfig
from rulebench.train.irft_output import stored_config

OLD_BARE_RESUME = (
    "train irft: --resume takes the run id now: rulebench train irft --resume RUN "
    "(the id is in OUTPUT/irft-run.json and `rulebench runs list`)"
)
"""Said when --resume is followed by another option: the old bare flag took it as the id."""
MISSING_FOLDERS = "train irft: give --data and --output (or --resume RUN)"
NONE_MEANS = {"layers": "all", "limit": "all", "max_steps": str(DEFAULT_MAX_STEPS)}
"""What a config field's None default means, in the words --help shows."""


class IrftOptions(BaseModel):
    """The options of `train irft`: each None (False for `merge`) unless given.

    Each but `resume` fills the `IrftConfig` field of its name, whose docstring is its help;
    the config checks the values, so one out of range is one line naming its field. An
    option left out takes the config's default.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    data: Path | None = None
    output: Path | None = None
    model: str | None = None
    rank: int | None = None
    alpha: int | None = None
    layers: int | None = None
    learning_rate: float | None = None
    epochs: float | None = None
    max_steps: int | None = None
    batch_size: int | None = None
    grad_accum: int | None = None
    max_length: int | None = None
    seed: int | None = None
    save_steps: int | None = None
    eval_size: int | None = None
    limit: int | None = None
    merge: bool = False
    device: str | None = None
    dtype: str | None = None
    resume: str | None = None
    """Continue a stopped run (run id) from its last checkpoint (from step 0 when it has none
    yet); its options are the run's own (--merge, --device, --dtype may change)."""


class PreparedIrft(NamedTuple):
    """A tuning run made from options: its config and where it is stored."""

    config: IrftConfig
    store: Path | None
    """The store the run is recorded in (a resumed run's: the one it was read from)."""
    resume: bool
    """The config is a stored run's, to continue (`--resume RUN`)."""


def prepare_irft(options: IrftOptions, store: Path | None = None) -> PreparedIrft:
    """The run's validated config from its options, or the stored run's for `resume`.

    Args:
        options: the options given.
        store: the results store (None: the default one).

    Raises:
        ConfigError: a missing --data or --output, a value the config refuses, a resumed
            run's training option changed, or the old bare `--resume` flag.
        StoreError: `resume` names no tuning run in the store.
    """
    given = given_fields(options)
    if (resume := options.resume) is not None:
        if resume.startswith("-"):  # the old bare flag took the option after it as the id
            raise ConfigError(OLD_BARE_RESUME)
        config, path = stored_config(resume, store, given)
        return PreparedIrft(config, path, resume=True)
    if options.data is None or options.output is None:
        raise ConfigError(MISSING_FOLDERS)
    return PreparedIrft(validate_into(IrftConfig, given, "train irft"), store, resume=False)


def given_fields(options: IrftOptions) -> dict[str, object]:
    """The config fields the options set: not None, and `merge` only when set.

    A 0 is given (`--eval-size 0` turns the evaluation off).
    """
    values = options.model_dump(exclude={"resume"})
    return {
        name: value for name, value in values.items() if value is not None and value is not False
    }
