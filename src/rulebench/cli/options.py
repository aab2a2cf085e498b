"""Options shared by the commands that run a model, declared once."""

import functools
import inspect
import os
import shlex
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

import typer

from rulebench.cli.reasoning_flags import (
    ReasoningEffortOption,
    ReasoningTagsOption,
    Switch,
    ThinkingOption,
    reasoning_options,
)
from rulebench.core.errors import ConfigError

if TYPE_CHECKING:
    from rulebench.engine.catalog import RunSettings

ModelOption = Annotated[
    str | None,
    typer.Option(
        "--model",
        "-m",
        help="Model spec provider/name (see `rulebench models`). Default: the embedded "
        "SmolLM2-135M-Instruct on llama.cpp, offline.",
        show_default=False,
    ),
]
ModelsOption = Annotated[
    list[str] | None,
    typer.Option(
        "--model",
        "-m",
        metavar="<spec>",
        help="Model spec provider/name (see `rulebench models`). Repeat it to run the same "
        "task on several models as one resumable batch, compared at the end. Default: the "
        "embedded SmolLM2-135M-Instruct on llama.cpp, offline.",
        show_default=False,
    ),
]
ModelArgOption = Annotated[
    list[str] | None,
    typer.Option(
        "--model-arg",
        "-M",
        help="Backend setting key=value, repeatable (e.g. -M timeout_s=60 -M n_ctx=8192).",
        show_default=False,
    ),
]
BASE_URL_HELP = (
    "Endpoint of an OpenAI-compatible server (overrides *_BASE_URL); repeat or comma-separate "
    "to spread requests over several replicas."
)
BaseUrlOption = Annotated[
    list[str] | None, typer.Option(metavar="<url>", help=BASE_URL_HELP, show_default=False)
]


def concurrency_flag(shown: str) -> Any:
    """The --concurrency/-c option, its default shown as `shown` (the config's)."""
    return typer.Option(
        "--concurrency", "-c", min=1, help="Items in flight at once.", show_default=shown
    )


def output_folder_flag(help_text: str, shown: str | bool) -> Any:
    """The -o/--output option of a command that writes a folder of files."""
    return typer.Option("--output", "-o", help=help_text, show_default=shown)


def concurrency_option(default: int) -> object:
    """--concurrency as a run command shows it: None unless given, the task's default shown."""
    return Annotated[int | None, concurrency_flag(str(default))]


LimitOption = Annotated[
    int | None,
    typer.Option("--limit", "-n", min=0, help="Run only the first N items.", show_default=False),
]
MaxTokensOption = Annotated[
    int | None,
    typer.Option(
        min=1, help="Reply length limit in tokens (default: the task's).", show_default=False
    ),
]
TemperatureOption = Annotated[
    float | None,
    typer.Option(
        min=0.0,
        help="Sampling temperature (default: the task's, 0 = greedy).",
        show_default=False,
    ),
]
SeedOption = Annotated[
    int,
    typer.Option(
        help="Seed of the data (generated items, rule orders) and, unless --sampling-seed "
        "says otherwise, of sampling (stored with the run)."
    ),
]
SamplingSeedOption = Annotated[
    int | None,
    typer.Option(
        help="Seed of the model's sampling, apart from the data seed; each --repeats repeat "
        "derives its own from it.",
        show_default=False,
    ),
]
NoCacheOption = Annotated[
    bool, typer.Option("--no-cache", help="Neither read nor write the response cache.")
]
StoreOption = Annotated[
    Path | None,
    typer.Option(
        "--store",
        help="Results store (SQLite file). Default: $RULEBENCH_STORE, else rulebench.sqlite "
        "in ./rulebench-results/.",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON to stdout.")]
OverwriteDataOption = Annotated[
    bool, typer.Option("--overwrite", help="Replace an existing data folder.")
]
FailOnErrorOption = Annotated[
    float,
    typer.Option(
        "--fail-on-error",
        min=0.0,
        max=1.0,
        metavar="<fraction>",
        help="Exit 0 when at most this fraction of the run's items ended in an error (0.1: "
        "up to 10%; 0: any error exits 1). The run is still stored as failed either way.",
    ),
]

ShardOption = Annotated[
    str | None,
    typer.Option(
        "--shard",
        metavar="<I/N>",
        help="Run only shard I of N (1-based) of the items, split by item id; `auto` reads a "
        "Slurm job array's index and count, `auto/N` a Kubernetes indexed Job's, in "
        "JOB_COMPLETION_INDEX. Join the shards' stores with `rulebench runs merge`.",
        show_default=False,
    ),
]

BatchOutputOption = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        help="Folder for the comparison of several -m models (table, reports); given with one "
        "model, that run is a batch too. Default: a folder in rulebench-experiment/ named "
        "for the task and the batch id.",
        show_default=False,
    ),
]


def join_base_urls(values: "Iterable[str] | None") -> str | None:
    """One `base_url` string from repeated --base-url values, comma-joined (None if none).

    A value may itself be a comma list: the backend splits the whole at each comma that starts
    another URL (a password may hold a comma). An empty value is refused rather than read as
    "no URL", which would silently fall back to the environment's.
    """
    urls = [value.strip() for value in values or ()]
    if any(not url for url in urls):
        raise ConfigError("--base-url: an empty value (give a URL, or leave the option out)")
    return ",".join(urls) if urls else None


def parse_model_args(pairs: list[str] | None) -> dict[str, str]:
    """Turn repeated key=value options into a dict, naming a malformed one."""
    args: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--model-arg '{pair}' is not key=value")
        args[key.strip()] = value
    return args


class RunOptions(NamedTuple):
    """The options every `run` subcommand shares, passed on in one piece."""

    models: tuple[str, ...]
    """Every -m given, in order (none: the embedded model); several make a batch."""
    model_args: list[str] | None
    base_url: str | None
    concurrency: int | None
    """None: the task's default (`TaskConfig.default_concurrency`)."""
    limit: int | None
    max_tokens: int | None
    temperature: float | None
    seed: int
    no_cache: bool
    sampling_seed: int | None = None
    """The model's sampling seed when it differs from the data seed."""
    store: Path | None = None
    as_json: bool = False
    fail_on_error: float = 0.0
    output: Path | None = None
    """Where a batch's comparison goes; given with one model, that run is a batch too."""
    shard: str | None = None
    """`--shard` as given: parsed by `core.shards.parse_shard`, with this process's env."""
    thinking: "Switch | None" = None
    reasoning_effort: str | None = None
    reasoning_tags: str | None = None
    """`--reasoning-tags` as given: parsed by `cli.reasoning_flags`."""

    @property
    def model(self) -> str | None:
        """The model of a single run: the only -m given, or None for the embedded default."""
        return self.models[0] if self.models else None

    @property
    def is_batch(self) -> bool:
        """Whether to run as a resumable batch: several models, or an output folder asked for."""
        return len(self.models) > 1 or self.output is not None

    def settings(self) -> "RunSettings":
        """The library's run settings: sampling follows the data seed unless told apart."""
        from rulebench.core.shards import parse_shard
        from rulebench.engine.catalog import RunSettings

        shard = None if self.shard is None else parse_shard(self.shard, os.environ)
        return RunSettings(
            model_args=parse_model_args(self.model_args),
            base_url=self.base_url,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            sampling_seed=self.seed if self.sampling_seed is None else self.sampling_seed,
            concurrency=self.concurrency,
            limit=self.limit,
            use_cache=not self.no_cache,
            shard=shard,
            reasoning=reasoning_options(self.thinking, self.reasoning_effort, self.reasoning_tags),
        )


def _shared_parameters(concurrency: int, limit: object) -> list[inspect.Parameter]:
    """The shared options as keyword parameters, in the order --help lists them."""
    annotated: list[tuple[str, object, object]] = [
        ("model", ModelsOption, None),
        ("model_arg", ModelArgOption, None),
        ("base_url", BaseUrlOption, None),
        ("concurrency", concurrency_option(concurrency), None),
        ("limit", limit, None),
        ("max_tokens", MaxTokensOption, None),
        ("temperature", TemperatureOption, None),
        ("seed", SeedOption, 0),
        ("sampling_seed", SamplingSeedOption, None),
        ("no_cache", NoCacheOption, False),
        ("store", StoreOption, None),
        ("as_json", JsonOption, False),
        ("fail_on_error", FailOnErrorOption, 0.0),
        ("output", BatchOutputOption, None),
        ("shard", ShardOption, None),
        ("thinking", ThinkingOption, None),
        ("reasoning_effort", ReasoningEffortOption, None),
        ("reasoning_tags", ReasoningTagsOption, None),
    ]
    return [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
        for name, kind, default in annotated
    ]


_SHARED = tuple(parameter.name for parameter in _shared_parameters(1, LimitOption))
Command = Callable[..., None]


def run_command(concurrency: int = 8, limit: object = LimitOption) -> Callable[[Command], Command]:
    """Give a `run` subcommand the shared options, declared here once.

    The decorated function takes its own options plus `run: RunOptions`; the command typer
    sees takes its own options followed by the shared ones, which arrive packed in `run`.

    Args:
        concurrency: the task's default for --concurrency, as --help shows it (the library
            fills it in: `TaskConfig.default_concurrency`).
        limit: the --limit option's annotation, where a command explains it its own way.
    """

    def decorate(command: Command) -> Command:
        signature = inspect.signature(command)
        own = [p for p in signature.parameters.values() if p.name != "run"]
        combined = signature.replace(parameters=[*own, *_shared_parameters(concurrency, limit)])

        @functools.wraps(command)
        def with_shared(*args: object, **kwargs: object) -> None:
            bound = combined.bind(*args, **kwargs)
            bound.apply_defaults()  # a direct call (bare `rulebench run`) may leave some out
            given = dict(bound.arguments)
            shared = {name: given.pop(name) for name in _SHARED}
            shared["model_args"] = shared.pop("model_arg")
            shared["models"] = tuple(_strings(shared.pop("model")))
            shared["base_url"] = join_base_urls(_strings(shared["base_url"]))
            command(**given, run=RunOptions(**shared))

        # typer reads the options from the signature: the command's own, then the shared ones.
        with_shared.__signature__ = combined  # type: ignore[attr-defined]  # read by inspect
        return with_shared

    return decorate


def _strings(value: object) -> list[str]:
    """A repeatable option's values: typer gives a list (or None); a direct call may give one."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(part) for part in value] if isinstance(value, list | tuple) else [str(value)]


def resume_command(run_id: str, store: Path | None, command: str = "run") -> str:
    """The command that finishes a run, naming its store when it is not the default."""
    where = f" --store {shlex.quote(str(store))}" if store is not None else ""
    return f"rulebench {command} --resume {run_id}{where}"


def is_given(ctx: typer.Context, name: str) -> bool:
    """Whether the user set option `name` (on the command line or through its variable)."""
    source = ctx.get_parameter_source(name)
    # typer ships its own copy of click's ParameterSource: compare by name.
    return source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT")


def given_only(**options: object) -> dict[str, object]:
    """The options the user gave (not None); the others are left to the config's defaults."""
    return {name: value for name, value in options.items() if value is not None}


def given_flags(ctx: typer.Context, names: "Iterable[str]") -> list[str]:
    """The flags (`--search-width`) of those of `names` the user set."""
    return ["--" + name.replace("_", "-") for name in names if is_given(ctx, name)]
