"""`rulebench attack transfer`: suffixes found on one model, tested on others.

The paper's transfer experiment. For every model, the scenarios are run once without a suffix
and once per suffix, each an ordinary stored run (cached and resumable; a repeat is served from
the cache). The suffixed run of a model is paired case by case with its own unsuffixed run: a
row gives both pass rates, the change with a paired 95% interval and McNemar's exact test.
"""

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rulebench.attack.suffixes import Suffix
from rulebench.core.renamed import rename_fields
from rulebench.core.sizes import PerGroup
from rulebench.engine.evaluation import evaluate
from rulebench.engine.run_settings import RunSettings
from rulebench.engine.run_specs import make_spec
from rulebench.engine.runner import ProgressReporter
from rulebench.engine.store.database import Store
from rulebench.scenarios.config import ScenarioConfig
from rulebench.scenarios.protocol import Protocol
from rulebench.scenarios.suffix import SuffixOn
from rulebench.train.comparison import (
    ComparisonRow,
    ScoredItem,
    compare_rows,
    markdown_table,
    scored_items,
)


class TransferConfig(BaseModel):
    """What each model is tested on (defaults sized for a CPU model)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    suites: tuple[str, ...] = ("basic",)
    scenarios: tuple[str, ...] = ()
    """Only these scenarios (default: the ones the suffixes attacked, else all)."""
    per_group: PerGroup = 5
    """Cases per behavior and suite; None ("all" in a file): every case (the official
    sizes). Formerly `per_behavior`."""
    suffix_on: SuffixOn = "first"
    """Where the suffix goes in each case: the first user message is where GCG optimised it."""
    protocol: Protocol = Protocol()
    max_tokens: int | None = Field(default=None, ge=1)
    concurrency: int = Field(default=8, ge=1)
    seed: int = 0
    model_args: dict[str, str] = Field(default_factory=dict)
    """Backend settings given to every model."""
    output: Path = Path("gcg-transfer")
    """Folder for transfer.md and transfer.json (`write_transfer_outputs`)."""

    @model_validator(mode="before")
    @classmethod
    def _old_names(cls, data: Any) -> Any:
        return rename_fields(data, {"per_behavior": "per_group"}, "transfer config")


class TransferRun(BaseModel):
    """One stored run behind the table."""

    model_config = ConfigDict(frozen=True)

    model: str
    suffix: str | None
    """The suffix's label; None for the model's unsuffixed run."""
    run_id: str
    status: str


class TransferResult(BaseModel):
    """The table's rows (one per suffix and model) and the runs behind them."""

    model_config = ConfigDict(frozen=True)

    rows: list[ComparisonRow]
    runs: list[TransferRun]

    @property
    def complete(self) -> bool:
        """Whether every run finished every case."""
        return all(run.status == "completed" for run in self.runs)

    def markdown(self) -> str:
        """The table: pass rates without and with each suffix, in percent."""
        table = markdown_table(self.rows, ("no suffix", "suffix"))
        runs = "\n".join(
            f"- {run.model}, {run.suffix or 'no suffix'}: run {run.run_id} ({run.status})"
            for run in self.runs
        )
        return (
            "# GCG suffix transfer\n\nPass rates in %, each suffixed run paired case by case "
            "with the same model's run without a suffix; suffix minus none in points with a "
            f"paired 95% interval; McNemar's exact test.\n\n{table}\nRuns:\n{runs}\n"
        )


def scenarios_of(suffixes: Sequence[Suffix], config: TransferConfig) -> tuple[str, ...]:
    """The scenarios asked for, else those the suffixes attacked (all when none is known)."""
    if config.scenarios:
        return config.scenarios
    return tuple(dict.fromkeys(s.scenario for s in suffixes if s.scenario))


async def run_transfer(
    config: TransferConfig,
    suffixes: Sequence[Suffix],
    models: Sequence[str],
    store: Store,
    progress: Callable[[str], ProgressReporter | None] = lambda title: None,
) -> TransferResult:
    """Run every model without and with every suffix, and pair each suffixed run with its base.

    Args:
        config: what each model is tested on.
        suffixes: the suffixes to test.
        models: model specs (any backend).
        store: where the runs go (and the cache they reuse).
        progress: gives the reporter of one run from its title ("<model>: <suffix>").
    """
    settings = RunSettings(
        model_args=config.model_args,
        max_tokens=config.max_tokens,
        concurrency=config.concurrency,
    )
    base_config = ScenarioConfig(
        suites=config.suites,
        seed=config.seed,
        per_group=config.per_group,
        scenarios=scenarios_of(suffixes, config),
        protocol=config.protocol,
    )
    rows: list[ComparisonRow] = []
    runs: list[TransferRun] = []

    async def measure(model: str, suffix: Suffix | None) -> dict[str, ScoredItem]:
        task_config = base_config
        if suffix is not None:
            given = {"suffix": suffix.text, "suffix_on": config.suffix_on}
            task_config = ScenarioConfig.model_validate(
                base_config.model_dump() | given | {"suffix_source": suffix.source}
            )
        label = suffix.label() if suffix else None
        spec = make_spec("scenarios", model, task_config, settings)
        report = await evaluate(spec, store, progress(f"{model}: {label or 'no suffix'}"))
        runs.append(TransferRun(model=model, suffix=label, run_id=report.run.id,
                                status=report.run.status))  # fmt: skip
        return scored_items(store.iter_results(report.run.id), None)

    for model in models:
        base = await measure(model, None)
        for suffix in suffixes:
            attacked = await measure(model, suffix)
            rows += compare_rows(f"{suffix.label()} on {model}", base, attacked)
    return TransferResult(rows=rows, runs=runs)


def write_transfer_outputs(result: TransferResult, folder: Path) -> list[Path]:
    """transfer.md (the table and its runs) and transfer.json in `folder`; the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    markdown, record = folder / "transfer.md", folder / "transfer.json"
    markdown.write_text(result.markdown(), encoding="utf-8")
    record.write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return [markdown, record]
