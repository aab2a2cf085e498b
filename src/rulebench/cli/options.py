"""Options shared by the commands that run a model, declared once."""

import shlex
from pathlib import Path
from typing import Annotated, NamedTuple

import typer

from rulebench.core.errors import ConfigError

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
ModelArgOption = Annotated[
    list[str] | None,
    typer.Option(
        "--model-arg",
        "-M",
        help="Backend setting key=value, repeatable (e.g. -M timeout_s=60 -M n_ctx=8192).",
        show_default=False,
    ),
]
BaseUrlOption = Annotated[
    str | None,
    typer.Option(
        help="Endpoint of an OpenAI-compatible server (overrides *_BASE_URL).", show_default=False
    ),
]
ConcurrencyOption = Annotated[
    int, typer.Option("--concurrency", "-c", min=1, help="Items in flight at once.")
]
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
    float, typer.Option(min=0.0, help="Sampling temperature (0 = greedy).")
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
RepeatsOption = Annotated[
    int,
    typer.Option(
        min=1, help="Evaluate every item this many times, each with its own sampling seed."
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

    model: str | None
    model_args: list[str] | None
    base_url: str | None
    concurrency: int
    limit: int | None
    max_tokens: int | None
    temperature: float
    seed: int
    no_cache: bool
    sampling_seed: int | None = None
    """The model's sampling seed when it differs from the data seed."""


def resume_command(run_id: str, store: Path | None) -> str:
    """The command that finishes a run, naming its store when it is not the default."""
    where = f" --store {shlex.quote(str(store))}" if store is not None else ""
    return f"rulebench run --resume {run_id}{where}"
