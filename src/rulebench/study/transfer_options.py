"""The options of `rulebench attack transfer` as a front end takes them, turned into its config.

A front end fills `TransferOptions` and calls `prepare_transfer`: the suffixes are loaded
once (a file, or a GCG run in the store), the models default to the embedded one, and the
line said before the runs is composed here, so every front end runs and says the same.
"""

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from rulebench.attack.suffixes import Suffix, load_suffix
from rulebench.core.validation import validate_into
from rulebench.engine.runner import ProgressReporter
from rulebench.engine.store.database import Store
from rulebench.models.registry import DEFAULT_MODEL
from rulebench.scenarios.protocol import Placement, Protocol
from rulebench.scenarios.suffix import SuffixOn
from rulebench.study.transfer import TransferConfig, TransferResult, run_transfer, scenarios_of


class TransferOptions(BaseModel):
    """The options of `attack transfer`: each None (or empty, or False) when not given.

    Each field's docstring is its option's help (`use_attribute_docstrings`); an option left
    out takes `TransferConfig`'s default (the protocol's: `Protocol`'s).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    suffixes: tuple[str, ...]
    """Repeatable: a text file holding a suffix, or a `rulebench attack gcg` run."""
    models: tuple[str, ...] = ()
    """Repeatable: a model to test, any backend (an OpenAI-compatible server:
    openai-api/<name>/<model> with <NAME>_BASE_URL). Default: the embedded model."""
    model_args: dict[str, str] = Field(default_factory=dict)
    """Backend settings given to every model."""
    suites: tuple[str, ...] = ()
    """Repeatable, as `run scenarios` takes it."""
    scenarios: tuple[str, ...] = ()
    """Only this scenario, repeatable. Default: the scenarios the suffixes attacked."""
    per_group: int | None = Field(default=None, ge=1)
    """Cases per behavior of each generated suite."""
    full: bool = False
    """Every case of the suites (official sizes)."""
    suffix_on: SuffixOn | None = None
    """Which user messages of each case get the suffix (GCG used the first)."""
    placement: Placement | None = None
    """Instruction placement."""
    no_reminders: bool = False
    """Drop the precedence reminders."""
    max_tokens: int | None = None
    concurrency: int | None = None
    output: Path | None = None


class PreparedTransfer(NamedTuple):
    """A transfer made from options: its config, suffixes and models, and its plan's line."""

    config: TransferConfig
    suffixes: tuple[Suffix, ...]
    models: tuple[str, ...]
    plan_line: str
    """Said before the runs start (`plan_line`)."""

    async def run(
        self, store: Store, progress: Callable[[str], ProgressReporter | None] = lambda _: None
    ) -> TransferResult:
        """Run every model without and with every suffix (`transfer.run_transfer`)."""
        return await run_transfer(self.config, self.suffixes, self.models, store, progress)


def prepare_transfer(options: TransferOptions, store: Path | None) -> PreparedTransfer:
    """The validated transfer config from its options, and its suffixes loaded once.

    Args:
        options: the options given.
        store: the store a suffix named by GCG run id is read from (None: the default one).

    Raises:
        ConfigError: a suffix that cannot be loaded, or a value the config refuses.
    """
    suffixes = tuple(load_suffix(given, store) for given in options.suffixes)
    models = options.models or (DEFAULT_MODEL,)
    protocol = {
        "placement": options.placement,
        "reminders": False if options.no_reminders else None,
    }
    given: dict[str, object] = {
        "suites": options.suites or None,
        "scenarios": options.scenarios or None,
        "per_group": options.per_group,
        "suffix_on": options.suffix_on,
        "protocol": Protocol(**{k: v for k, v in protocol.items() if v is not None}),
        "max_tokens": options.max_tokens,
        "concurrency": options.concurrency,
        "model_args": options.model_args,
        "output": options.output,
    }
    values = {name: value for name, value in given.items() if value is not None}
    if options.full:
        values["per_group"] = None
    config = validate_into(TransferConfig, values, "attack transfer")
    return PreparedTransfer(config, suffixes, models, plan_line(suffixes, models, config))


def plan_line(suffixes: Sequence[Suffix], models: Sequence[str], config: TransferConfig) -> str:
    """What the transfer runs: the suffixes, models, scenarios, suites and protocol."""
    chosen = ", ".join(scenarios_of(suffixes, config)) or "all"
    cases = "all cases" if config.per_group is None else f"{config.per_group} per behavior"
    return (
        f"transfer: {len(suffixes)} suffix(es) on {', '.join(models)}; scenarios {chosen}; "
        f"suites {', '.join(config.suites)}, {cases}; suffix on {config.suffix_on} user "
        f"message(s); {config.protocol.label()}"
    )


def unfinished_runs(result: TransferResult) -> list[str]:
    """A line for each run that did not finish every case (the table lacks some of it)."""
    return [
        f"run {run.run_id} ({run.model}) is {run.status}"
        for run in result.runs
        if run.status != "completed"
    ]
