"""The options of `rulebench train data` as a front end takes them, turned into a data config.

One set of options builds either kind of data folder: StringGame splits (`DataConfig`) or,
with `in_domain`, the benchmark's own train prompts (`InDomainConfig`). `prepare_data` picks
the kind, refuses the options the other kind takes, and leaves out what was not given, so
the config's defaults apply; the command line and a Python caller write the same folder.
"""

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from rulebench.core.errors import ConfigError
from rulebench.core.validation import validate_into
from rulebench.train.data import MANIFEST, DataManifest, write_dataset, write_in_domain
from rulebench.train.examples import DataConfig, TrainingExample
from rulebench.train.in_domain import InDomainConfig, check_sources

STRINGGAME_ONLY = (
    "train data: --per-group, --heldout-fraction and --heldout-by are StringGame options; "
    "in-domain data has a train split only"
)
IN_DOMAIN_ONLY = "train data: --data-root, --task and --kinship-size need --in-domain"


class DataOptions(BaseModel):
    """The options of `train data`: each None (empty, False) unless given.

    Each field's docstring is its option's help (`use_attribute_docstrings`); an option left
    out takes the default of the config it fills (`DEFAULTS_FROM`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    limit: int | None = None
    """Training examples; with --in-domain a cap on all examples, a seeded sample (there: all
    unless given)."""
    per_group: int | None = None
    """Examples per test split (in-distribution, held-out rules)."""
    seed: int | None = None
    """Seed of strings, noise rules, orders, held-out."""
    form: str | None = None
    """Rule form in the prompts: nl or fol."""
    heldout_fraction: float | None = None
    """Share of the rule library kept out of training (0 to 0.9)."""
    heldout_by: str | None = None
    """How the held-out split is held out: rules (held-out rules may reuse training rules'
    conditions and outputs) or composition (their conditions and outputs occur in no training
    rule; rules mixing both are left out)."""
    in_domain: bool = False
    """Benchmark prompts (golden and few rules) from the kinship generator's train split and,
    with --data-root, official train files; test questions dropped."""
    data_root: Path | None = None
    """--in-domain: the release's data folder, <clone>/dataset (holds clutrr/, ...)."""
    tasks: tuple[str, ...] = ()
    """--in-domain: official dataset to read, repeatable."""
    kinship_size: int | None = None
    """--in-domain: generated kinship train samples (0: none)."""


DEFAULTS_FROM: dict[str, type[BaseModel]] = {
    "limit": DataConfig,
    "per_group": DataConfig,
    "seed": DataConfig,
    "form": DataConfig,
    "heldout_fraction": DataConfig,
    "heldout_by": DataConfig,
    "tasks": InDomainConfig,
    "kinship_size": InDomainConfig,
}
"""The config whose default each option shows (--in-domain's --limit: all, as --help says)."""


class PreparedData(NamedTuple):
    """A data folder's config made from options, and how its progress is shown."""

    config: DataConfig | InDomainConfig
    bar_label: str
    """What the progress bar says it builds."""
    total: int | None
    """Examples the build makes (None: unknown before the sources are read)."""


def prepare_data(options: DataOptions) -> PreparedData:
    """The folder's validated config; an in-domain one's sources are checked before any work.

    Raises:
        ConfigError: an option of the other kind of data, or a value the config refuses.
        DataError: an in-domain dataset folder is missing.
    """
    shared: dict[str, object] = {"limit": options.limit, "seed": options.seed}
    shared["form"] = options.form
    if options.in_domain:
        return _in_domain(options, shared)
    if options.data_root is not None or options.tasks or options.kinship_size is not None:
        raise ConfigError(IN_DOMAIN_ONLY)
    values = shared | {"per_group": options.per_group, "heldout_by": options.heldout_by}
    values["heldout_fraction"] = options.heldout_fraction
    config = validate_into(DataConfig, _given(values), "train data")
    splits = 2 if config.heldout_fraction > 0 else 1
    return PreparedData(config, "building examples", config.limit + splits * config.per_group)


def _in_domain(options: DataOptions, shared: dict[str, object]) -> PreparedData:
    """The in-domain config (StringGame's options refused), its sources checked."""
    stringgame = (options.per_group, options.heldout_fraction, options.heldout_by)
    if any(value is not None for value in stringgame):
        raise ConfigError(STRINGGAME_ONLY)
    root = options.data_root.resolve() if options.data_root else None  # as recorded
    values = shared | {"kinship_size": options.kinship_size, "data_root": root}
    values["tasks"] = options.tasks or None
    config = validate_into(InDomainConfig, _given(values), "train data --in-domain")
    check_sources(config)  # a missing dataset folder is refused before the bar is drawn
    return PreparedData(config, "building in-domain examples", None)


def write_data(
    config: DataConfig | InDomainConfig,
    folder: Path,
    on_example: Callable[[TrainingExample], None] | None = None,
) -> DataManifest:
    """Build and write the folder `config` describes (claimed beforehand: `claim_folder`)."""
    if isinstance(config, InDomainConfig):
        return write_in_domain(config, folder, on_example=on_example)
    return write_dataset(config, folder, on_example=on_example)


def _given(values: dict[str, object]) -> dict[str, object]:
    """The options the user gave: the config fills in the rest with its defaults."""
    return {name: value for name, value in values.items() if value is not None}


def abandon_build(folder: Path) -> str:
    """Leave a stopped build's folder complete or empty (its splits removed); say which.

    A folder without a manifest is one `train data` refuses to replace, so the half-written
    splits are removed (the folder was empty when claimed) and the same command starts over.
    """
    if (folder / MANIFEST).is_file():
        return f"The data set in {folder} was complete."
    for path in folder.iterdir():  # only what the interrupted write had begun
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
    return f"No data set was written ({folder} is empty); run the same command again."
