"""Experiment files: models, tasks and settings in TOML or YAML, planned as one batch of runs.

    [experiment]
    name = "rules-vs-size"
    [defaults]
    limit = 20
    [[models]]
    spec = "llamacpp/SmolLM2-135M-Instruct"
    [[tasks]]
    task = "inferential"
    options = { tasks = ["kinship"], per_group = 10 }

Every model runs every task. A task's `options` are its config's fields (as the Python API
takes them), checked by the task's own config; a run setting under [[tasks]] wins over
[defaults]. A mistake is one error naming the file, the line, the table and the field.

Split with a shard (`--shard I/N`), every planned run is that shard of its run: an ordinary
run whose spec records the shard, so the same file and shard again resumes it, and
`rulebench runs merge` joins each run's shards from the shards' stores into that one run.
"""

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    ValidationError,
    field_validator,
    model_validator,
)

from rulebench.core.errors import ConfigError
from rulebench.core.messages import NO_REASONING_OPTIONS, ReasoningOptions
from rulebench.core.renamed import rename_fields
from rulebench.core.shards import Shard
from rulebench.engine.catalog import config_type
from rulebench.engine.dispatch_order import DispatchOrder
from rulebench.engine.run_settings import RunSettings
from rulebench.engine.store.location import default_store_path
from rulebench.study.batch import ModelChoice, PlannedRun, plan_runs
from rulebench.study.experiment_lines import Format, Places, pyyaml


def _arg_text(value: object) -> object:
    """A file's backend setting as `-M key=value` gives it: text, true/false for booleans."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if not isinstance(value, str):
        raise ValueError("a backend setting is a string, a number or a boolean")
    return value


ArgValue = Annotated[str, BeforeValidator(_arg_text)]
"""A backend setting as a file writes it (text, number, boolean), kept as text as -M has it."""
OLD_CACHE_SWITCH = "experiment file (no_cache = true is use_cache = false)"
"""Who the warning about `no_cache` names: the new field says the opposite."""


class RunDefaults(BaseModel):
    """Run settings shared by every run ([defaults]), or by one task's runs ([[tasks]]).

    The fields, types and bounds of `RunSettings` (a test holds them equal), each optional
    (None: from [defaults], else the library's), plus the data's `seed`; `model_args` are in
    [defaults] and [[models]], `base_url` in [[models]], a shard is the command line's.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_tokens: int | None = Field(default=None, ge=1)
    """Reply limit (default: the task's)."""
    temperature: float | None = Field(default=None, ge=0, allow_inf_nan=False)
    seed: int | None = None
    """As --seed: the data's seed (a task's `seed` option, where its options leave it out)
    and the sampling seed, unless `sampling_seed` says otherwise."""
    sampling_seed: int | None = None
    concurrency: int | None = Field(default=None, ge=1)
    limit: int | None = Field(default=None, ge=0)
    """Run only the first N items of each run."""
    use_cache: bool | None = None
    """Read and write the response cache (`no_cache = true`, its old spelling: false)."""
    reasoning: ReasoningOptions | None = None
    """[defaults.reasoning] or [tasks.reasoning]: thinking, effort, tags (`ReasoningOptions`)."""
    order: DispatchOrder | None = None
    """"grouped": items sharing their beginning sent together (`RunSettings.order`)."""

    @model_validator(mode="before")
    @classmethod
    def _old_cache_switch(cls, data: object) -> object:
        """`no_cache = true`, the old spelling, read as `use_cache = false`."""
        if not isinstance(data, Mapping) or "no_cache" not in data:
            return data
        old = data["no_cache"]
        if not isinstance(old, bool):
            raise ValueError("no_cache (the old spelling of use_cache) is true or false")
        fields = {**data, "no_cache": not old}  # the switch says the opposite of its new name
        return rename_fields(fields, {"no_cache": "use_cache"}, OLD_CACHE_SWITCH)


class Defaults(RunDefaults):
    """[defaults]: the run settings, plus backend settings every model gets."""

    model_args: dict[str, ArgValue] = Field(default_factory=dict)


class ModelEntry(BaseModel):
    """One [[models]] entry."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec: str
    """A model spec, as -m takes it."""
    label: str | None = None
    """How the table names it (default: the spec); needed when a spec appears twice."""
    base_url: str | None = None
    """An OpenAI-compatible server, or several replicas (a list or a comma list)."""
    model_args: dict[str, ArgValue] = Field(default_factory=dict)
    """Backend settings, over the [defaults] ones."""
    reasoning: ReasoningOptions | None = None
    """This model's thinking switch, effort and tags, over the task's and [defaults]': one
    spec twice, with thinking on and off, compares the two."""

    @field_validator("base_url", mode="before")
    @classmethod
    def _join_replicas(cls, value: object) -> object:
        """A list of replicas as the comma list the backends take; no empty entry."""
        urls = value if isinstance(value, list) else [value]
        if any(isinstance(url, str) and not url.strip() for url in urls):
            raise ValueError("an empty URL")
        if isinstance(value, list) and all(isinstance(url, str) for url in value):
            return ",".join(url.strip() for url in value)
        return value


class TaskEntry(RunDefaults):
    """One [[tasks]] entry: a task, its options, and run settings over [defaults]."""

    task: str
    label: str | None = None
    """How the table and the report folder name it (default: the task); needed twice."""
    options: dict[str, JsonValue] = Field(default_factory=dict)


class ExperimentHeader(BaseModel):
    """[experiment]."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str | None = None
    """The batch's name (default: the file's name without its suffix)."""
    store: Path | None = None
    """Results store (relative paths from the working directory, as --store)."""
    output: Path | None = None
    """Folder for the comparison (default rulebench-experiment/<name>/)."""


class ExperimentFile(BaseModel):
    """A whole experiment file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    experiment: ExperimentHeader = ExperimentHeader()
    defaults: Defaults = Defaults()
    models: list[ModelEntry] = Field(min_length=1)
    tasks: list[TaskEntry] = Field(min_length=1)


class Experiment(BaseModel):
    """A loaded, checked experiment: its name, where it goes, and its runs in order."""

    model_config = ConfigDict(frozen=True)

    name: str
    path: Path
    store: Path | None
    output: Path | None
    runs: list[PlannedRun]
    shard: Shard | None = None
    """The piece of every run's items this process runs (None: the whole of each)."""


def load_experiment(
    path: Path, store: Path | None = None, shard: Shard | None = None
) -> Experiment:
    """Read, check and plan an experiment file (nothing runs).

    Args:
        path: a .toml, .yaml or .yml file.
        store: the results store, where the command line names one (else the file's).
        shard: run only this shard of each run's items (`--shard`); a command line setting,
            never the file's, since every shard runs the same file.

    Raises:
        ConfigError: an unreadable file, or a mistake in it, naming the line and field.
    """
    kind, text, data = _read(path)
    where = Places(path, kind, text)
    try:
        parsed = ExperimentFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(where.problems(exc)) from None
    _check_labels(parsed, where)
    chosen_store = store or parsed.experiment.store
    options = [
        _task_options(task, index, parsed.defaults, chosen_store, where)
        for index, task in enumerate(parsed.tasks)
    ]
    runs: list[PlannedRun] = []
    for model in parsed.models:  # model by model: a model that is down fails its runs together
        for task, task_options in zip(parsed.tasks, options, strict=True):
            settings = _settings(parsed, model, task).model_copy(update={"shard": shard})
            choice = ModelChoice(model.spec, model.label or model.spec, settings)
            runs.extend(plan_runs(task.task, task_options, [choice], task.label or task.task))
    return Experiment(
        name=parsed.experiment.name or path.stem,
        path=path,
        store=chosen_store,
        output=parsed.experiment.output,
        runs=runs,
        shard=shard,
    )


def _read(path: Path) -> tuple[Format, str, Any]:
    """The file's format, text and parsed content (a syntax error names its line)."""
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".yaml", ".yml"):
        raise ConfigError(f"{path}: an experiment file is .toml, .yaml or .yml")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the experiment file: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason})") from None
    if suffix == ".toml":
        try:
            return "toml", text, tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return "yaml", text, _load_yaml(path, text)


def _load_yaml(path: Path, text: str) -> Any:
    try:
        yaml = pyyaml()
    except ImportError:
        need = "YAML files need PyYAML: pip install 'rulebench[yaml]'"
        raise ConfigError(f"{path}: {need}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {' '.join(str(exc).split())}") from None


def _check_labels(parsed: ExperimentFile, where: Places) -> None:
    """Each model and task appears once under its label: the table needs one name per row."""
    for table, labels in (
        ("models", [model.label or model.spec for model in parsed.models]),
        ("tasks", [task.label or task.task for task in parsed.tasks]),
    ):
        for index, label in enumerate(labels):
            if label in labels[:index]:
                raise ConfigError(
                    f"{where.place((table, index))}: {label!r} is already in the file: give "
                    "one of them another `label`"
                )


def _task_options(
    task: TaskEntry, index: int, defaults: Defaults, store: Path | None, where: Places
) -> dict[str, JsonValue]:
    """A task's options checked by its config, with the seed and store filled in as the CLI does."""
    try:
        model = config_type(task.task)
    except ConfigError as exc:
        raise ConfigError(f"{where.place(('tasks', index, 'task'))}: task: {exc}") from None
    options = dict(task.options)
    seed = task.seed if task.seed is not None else defaults.seed
    if seed is not None:
        options = _seeded(model, options, seed)
    if "store" in model.model_fields and "store" not in options:
        # The judge reads its source runs from a store: the batch's, as the CLI does.
        options["store"] = str(store or default_store_path())
    try:
        model.model_validate(options)
    except ValidationError as exc:
        raise ConfigError(where.problems(exc, ("tasks", index, "options"), task.task)) from None
    return options


def _seeded(
    model: type[BaseModel], options: dict[str, JsonValue], seed: int
) -> dict[str, JsonValue]:
    """The options with `seed` set wherever the config has one and the options leave it out.

    One level down too (inferential's grid has its own seed), as --seed sets both.
    """
    seeded = dict(options)
    if "seed" in model.model_fields:
        seeded.setdefault("seed", seed)
    for name, field in model.model_fields.items():
        nested = field.annotation
        if (
            isinstance(nested, type)
            and issubclass(nested, BaseModel)
            and "seed" in nested.model_fields
        ):
            given = seeded.get(name, {})
            if isinstance(given, dict):
                seeded[name] = {"seed": seed, **given}
    return seeded


def _settings(parsed: ExperimentFile, model: ModelEntry, task: TaskEntry) -> RunSettings:
    """One run's settings: the task's, else [defaults], else the CLI's defaults."""

    def pick(name: str) -> Any:
        value = getattr(task, name)
        return getattr(parsed.defaults, name) if value is None else value

    seed = pick("seed")
    sampling_seed = pick("sampling_seed")
    args: Mapping[str, ArgValue] = {**parsed.defaults.model_args, **model.model_args}
    return RunSettings(
        model_args=dict(args),
        base_url=model.base_url,
        max_tokens=pick("max_tokens"),
        temperature=pick("temperature"),
        sampling_seed=sampling_seed if sampling_seed is not None else seed or 0,
        concurrency=pick("concurrency") or RunSettings().concurrency,
        limit=pick("limit"),
        use_cache=pick("use_cache") is not False,
        reasoning=model.reasoning or pick("reasoning") or NO_REASONING_OPTIONS,
        order=pick("order") or "given",
    )
