"""Options shared by the commands that run a model, declared once.

The run settings' options are generated from `RunSettings` (cli.setting_options); the blocks
of options every `run` command and every study command take are stacked onto them with
`cli.option_stack.with_options`.
"""

import inspect
import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

import typer

from rulebench.cli.option_stack import Command, OptionBlock, keyword, with_options
from rulebench.cli.reasoning_flags import (
    ReasoningEffortOption,
    ReasoningTagsOption,
    ThinkingOption,
)
from rulebench.cli.setting_options import setting_flag, setting_option
from rulebench.engine.run_flags import Switch, join_base_urls

if TYPE_CHECKING:
    from rulebench.engine.dispatch_order import DispatchOrder
    from rulebench.engine.run_settings import RunSettings

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
ModelArgOption = setting_option("model_args")
BaseUrlOption = setting_option("base_url")


def concurrency_flag(shown: str) -> Any:
    """The --concurrency/-c option, its default shown as `shown` (the config's)."""
    return setting_flag("concurrency", shown)


def output_folder_flag(help_text: str, shown: str | bool) -> Any:
    """The -o/--output option of a command that writes a folder of files."""
    return typer.Option("--output", "-o", help=help_text, show_default=shown)


def concurrency_option(default: int) -> object:
    """--concurrency as a run command shows it: None unless given, the task's default shown."""
    return Annotated[int | None, concurrency_flag(str(default))]


LimitOption = setting_option("limit")
MaxTokensOption = setting_option("max_tokens")
TemperatureOption = setting_option("temperature")
SeedOption = Annotated[
    int,
    typer.Option(
        help="Seed of the data (generated items, rule orders) and, unless --sampling-seed "
        "says otherwise, of sampling (stored with the run)."
    ),
]
SamplingSeedOption = setting_option("sampling_seed")
NoCacheOption = setting_option("use_cache")
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

ShardOption = setting_option("shard")
OrderOption = setting_option("order")

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
    use_cache: bool
    """Not --no-cache: the setting as `RunSettings` spells it."""
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
    """`--reasoning-tags` as given: parsed by `engine.run_flags`."""
    order: "DispatchOrder | None" = None

    @property
    def model(self) -> str | None:
        """The model of a single run: the only -m given, or None for the embedded default."""
        return self.models[0] if self.models else None

    @property
    def is_batch(self) -> bool:
        """Whether to run as a resumable batch: several models, or an output folder asked for."""
        return len(self.models) > 1 or self.output is not None

    def settings(self) -> "RunSettings":
        """The library's run settings (`engine.run_flags.SpelledSettings`)."""
        from rulebench.engine.run_flags import ReasoningFlags, SpelledSettings

        given = self._asdict()
        reasoning = ReasoningFlags(
            **{name: given.pop(name) for name in ReasoningFlags.model_fields}
        )
        spelled = {
            name: value for name, value in given.items() if name in SpelledSettings.model_fields
        }
        return SpelledSettings(**spelled, reasoning=reasoning).settings(os.environ)


def _shared_parameters(concurrency: int, limit: object) -> tuple[inspect.Parameter, ...]:
    """The shared options as keyword parameters, in the order --help lists them."""
    return (
        keyword("model", ModelsOption, None),
        keyword("model_arg", ModelArgOption, None),
        keyword("base_url", BaseUrlOption, None),
        keyword("concurrency", concurrency_option(concurrency), None),
        keyword("limit", limit, None),
        keyword("max_tokens", MaxTokensOption, None),
        keyword("temperature", TemperatureOption, None),
        keyword("seed", SeedOption, 0),
        keyword("sampling_seed", SamplingSeedOption, None),
        keyword("no_cache", NoCacheOption, False),
        keyword("store", StoreOption, None),
        keyword("as_json", JsonOption, False),
        keyword("fail_on_error", FailOnErrorOption, 0.0),
        keyword("output", BatchOutputOption, None),
        keyword("shard", ShardOption, None),
        keyword("order", OrderOption, None),
        keyword("thinking", ThinkingOption, None),
        keyword("reasoning_effort", ReasoningEffortOption, None),
        keyword("reasoning_tags", ReasoningTagsOption, None),
    )


_SHARED = tuple(parameter.name for parameter in _shared_parameters(1, LimitOption))


def _pack_run(values: dict[str, Any]) -> RunOptions:
    """The shared options' values as one `RunOptions` (-m, -M and --base-url gathered)."""
    values["model_args"] = values.pop("model_arg")
    values["use_cache"] = not values.pop("no_cache")  # the flag turns the setting off
    values["models"] = tuple(_strings(values.pop("model")))
    values["base_url"] = join_base_urls(_strings(values["base_url"]))
    return RunOptions(**values)


def run_command(concurrency: int = 8, limit: object = LimitOption) -> Callable[[Command], Command]:
    """Give a `run` subcommand the shared options, declared here once.

    The decorated function takes its own options plus `run: RunOptions`; the command typer
    sees takes its own options followed by the shared ones, which arrive packed in `run`.

    Args:
        concurrency: the task's default for --concurrency, as --help shows it (the library
            fills it in: `TaskConfig.default_concurrency`).
        limit: the --limit option's annotation, where a command explains it its own way.
    """
    block = OptionBlock(_shared_parameters(concurrency, limit), _pack_run, last=True)
    return with_options(run=block)


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
