"""`rulebench train compare`: a base and a tuned model measured on the same items.

Every measurement is an ordinary run in the store (cached, resumable, visible in `runs list`):
the tuned model's own StringGame test splits (in-distribution and held-out rules), RuleBench
zero-shot with a few rules (the official data where a data root is given, generated kinship
otherwise), and the scenarios' benign suite as a control for general ability. The two runs of
each measurement are then paired by item into the rows of the paper's Table 3.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rulebench.core.errors import ConfigError
from rulebench.core.renamed import rename_fields
from rulebench.engine.evaluation import evaluate
from rulebench.engine.run_settings import RunSettings
from rulebench.engine.run_specs import make_spec
from rulebench.engine.runner import ProgressReporter
from rulebench.engine.store.database import Store
from rulebench.engine.task_config import TaskConfig
from rulebench.inferential.registry import task_names
from rulebench.inferential.settings import Grid
from rulebench.inferential.task import InferentialConfig
from rulebench.models.hf.loading import ADAPTER_CONFIG
from rulebench.models.registry import parse_spec
from rulebench.report.plots import loss_curve
from rulebench.scenarios.config import ScenarioConfig
from rulebench.train.comparison import ComparisonRow, compare_rows, markdown_table, scored_items
from rulebench.train.data import read_manifest
from rulebench.train.eval_task import IrftTestConfig
from rulebench.train.irft import RUN_FILE, read_run_file


class Contender(BaseModel):
    """One side of the comparison: a model spec and its backend settings."""

    model_config = ConfigDict(frozen=True)

    label: str
    model: str
    model_args: dict[str, str] = Field(default_factory=dict)
    irft_run: Path | None = None
    """The `train irft` output folder the model came from, when it did."""
    irft_data: Path | None = None
    """The data folder that run trained on (from its run file)."""

    def describe(self) -> str:
        """The spec with its settings, as a person would type them."""
        extra = "".join(f" -M {key}={value}" for key, value in sorted(self.model_args.items()))
        return f"{self.model}{extra}"


def contender(label: str, given: str, base: Contender | None = None) -> Contender:
    """One side of the comparison from what the user typed.

    A model spec; a `train irft` output folder (its base model with its adapter); an adapter
    folder (on the base model's spec); a merged model folder (an hf model).

    Raises:
        ConfigError: an adapter folder without a base to put it on, or an unknown spec.
    """
    path = Path(given).expanduser()
    if (path / RUN_FILE).is_file():
        run = read_run_file(path)
        adapter = path / "adapter"
        if not (adapter / ADAPTER_CONFIG).is_file():
            raise ConfigError(f"{path}: IRFT run {run['run_id']} has no adapter yet (unfinished)")
        return Contender(
            label=label,
            model=str(run["config"]["model"]),
            model_args={"adapter": str(adapter)},
            irft_run=path,
            irft_data=Path(str(run["config"]["data"])),
        )
    if (path / ADAPTER_CONFIG).is_file():
        if base is None:
            raise ConfigError(f"{path} is an adapter: it needs a base model to go on")
        return Contender(
            label=label, model=base.model, model_args={**base.model_args, "adapter": str(path)}
        )
    if path.is_dir():
        return Contender(label=label, model=f"hf/{path.resolve()}")
    parse_spec(given)
    return Contender(label=label, model=given)


class StudyConfig(BaseModel):
    """What the comparison measures and how much of it (defaults sized for a CPU)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    data: Path | None = None
    """The IRFT data folder whose test splits are measured (default: the tuned run's)."""
    data_root: Path | None = None
    """The official RuleBench release; without it, generated kinship stands in."""
    tasks: tuple[str, ...] = ()
    """RuleBench tasks (default: the factual official ones present, else kinship)."""
    stringgame_per_group: int = Field(default=100, ge=1)
    """Items per StringGame test split (formerly `stringgame_n`)."""
    rulebench_per_group: int = Field(default=50, ge=1)
    """Samples per RuleBench task (formerly `rulebench_n`)."""
    scenarios_per_group: int | None = Field(default=1, ge=1)
    """Benign cases per scenario behavior; None: the whole suite (formerly `scenario_cases`)."""
    rulebench: bool = True
    scenarios: bool = True
    max_tokens: int | None = Field(default=None, ge=1)
    """Reply limit for every run (default: each task's own)."""
    concurrency: int = Field(default=8, ge=1)
    seed: int = 0
    output: Path = Path("irft-compare")
    """Folder for compare.md, compare.json and the loss curve (`write_outputs`)."""

    @model_validator(mode="before")
    @classmethod
    def _old_names_and_per_group(cls, data: Any) -> Any:
        """Old field names read as the new ones; `per_group` sets every part not given."""
        data = rename_fields(data, _RENAMED, "train compare")
        if not isinstance(data, dict) or "per_group" not in data:
            return data
        data = dict(data)
        every = data.pop("per_group")
        if every is not None:
            for part in PARTS:
                data.setdefault(part, every)
        return data


PARTS = ("stringgame_per_group", "rulebench_per_group", "scenarios_per_group")
"""The comparison's counts, one per part; `per_group` sets them all."""
_RENAMED = {
    "stringgame_n": "stringgame_per_group",
    "rulebench_n": "rulebench_per_group",
    "scenario_cases": "scenarios_per_group",
}


class Measurement(NamedTuple):
    """One thing both models are run on."""

    name: str
    task: str
    config: TaskConfig
    group_by: str | None


def rulebench_tasks(config: StudyConfig) -> tuple[str, ...]:
    """The tasks asked for, else the factual official datasets in the data root, else kinship."""
    if config.tasks:
        return config.tasks
    if config.data_root is None:
        return ("kinship",)
    present = tuple(
        name
        for name in task_names()
        if not name.endswith("-cf") and (config.data_root / name).is_dir()
    )
    if not present:
        raise ConfigError(f"--data-root {config.data_root}: no RuleBench dataset folder in it")
    return present


HELDOUT_TITLES = {
    "rules": "StringGame held-out rules (their conditions, outputs in training)",
    "composition": "StringGame held out by composition (conditions, outputs unseen)",
}
"""How a comparison names the held-out split it measured (`DataConfig.heldout_by`)."""


def measurements(config: StudyConfig, data: Path) -> list[Measurement]:
    """Everything both models are run on, in the order the table shows it."""
    manifest = read_manifest(data)
    splits = [("test", "StringGame in-distribution")]
    if manifest.counts.get("heldout"):
        by = manifest.config.heldout_by if manifest.config else "rules"
        splits.append(("heldout", HELDOUT_TITLES[by]))
    found = [
        Measurement(
            title,
            "irft-test",
            IrftTestConfig(data=str(data), split=split, per_group=config.stringgame_per_group),
            None,
        )
        for split, title in splits
    ]
    if config.rulebench:
        few_rules = InferentialConfig(
            tasks=rulebench_tasks(config),
            per_group=config.rulebench_per_group,
            seed=config.seed,
            data_root=str(config.data_root) if config.data_root else None,
            grid=Grid(quantities=("few",), forms=("nl",), cot=(False,), shots=0, seed=config.seed),
        )
        found.append(Measurement("RuleBench", "inferential", few_rules, "task"))
    if config.scenarios:
        benign = ScenarioConfig(
            suites=("benign",), seed=config.seed, per_group=config.scenarios_per_group
        )
        found.append(Measurement("scenarios benign", "scenarios", benign, None))
    return found


class SideRun(BaseModel):
    """One stored run of the study."""

    model_config = ConfigDict(frozen=True)

    measurement: str
    side: str
    run_id: str
    status: str
    cache_hits: int
    """Replies this invocation took from the cache (all of them when the study is repeated)."""


class StudyResult(BaseModel):
    """The table and the runs behind it."""

    model_config = ConfigDict(frozen=True)

    base: Contender
    tuned: Contender
    rows: list[ComparisonRow]
    runs: list[SideRun]

    @property
    def complete(self) -> bool:
        """Whether every run finished every item."""
        return all(run.status == "completed" for run in self.runs)


async def run_study(
    config: StudyConfig,
    base: Contender,
    tuned: Contender,
    store: Store,
    progress: Callable[[str], ProgressReporter | None] = lambda title: None,
) -> StudyResult:
    """Run every measurement on both sides (reusing cached replies) and pair the results.

    Args:
        config: what to measure.
        base: the model before tuning.
        tuned: the model after tuning.
        store: where the runs go (and the cache they reuse).
        progress: gives the reporter of one run from its title ("<measurement>: <side>").
    """
    data = config.data or _run_data(tuned)
    rows: list[ComparisonRow] = []
    runs: list[SideRun] = []
    for measurement in measurements(config, data):
        scored = []
        for side in (base, tuned):
            settings = RunSettings(
                model_args=side.model_args,
                max_tokens=config.max_tokens,
                concurrency=config.concurrency,
            )
            spec = make_spec(measurement.task, side.model, measurement.config, settings)
            report = await evaluate(spec, store, progress(f"{measurement.name}: {side.label}"))
            run = report.run
            runs.append(
                SideRun(
                    measurement=measurement.name,
                    side=side.label,
                    run_id=run.id,
                    status=run.status,
                    cache_hits=report.cache_hits_now,
                )
            )
            scored.append(scored_items(store.iter_results(run.id), measurement.group_by))
        rows.extend(compare_rows(measurement.name, scored[0], scored[1]))
    return StudyResult(base=base, tuned=tuned, rows=rows, runs=runs)


def _run_data(tuned: Contender) -> Path:
    """The data folder the tuned model was trained on, from its run file."""
    if tuned.irft_data is None:
        raise ConfigError(
            "--data is needed: the tuned model is not a `train irft` output folder, so its "
            "data folder is unknown"
        )
    return tuned.irft_data


def loss_points(tuned: Contender) -> list[list[float]]:
    """The tuned model's training loss curve, from its run record (none for other models)."""
    if tuned.irft_run is None:
        return []
    run_file = read_run_file(tuned.irft_run)
    with Store(Path(run_file["store"])) as store:
        notes = store.get_run(str(run_file["run_id"])).notes
    curve = notes.get("loss_curve")
    if not isinstance(curve, list):
        return []
    return [
        [float(step), float(loss)]
        for step, loss in (point for point in curve if isinstance(point, list))
        if isinstance(step, int | float) and isinstance(loss, int | float)
    ]


def write_outputs(result: StudyResult, folder: Path) -> list[Path]:
    """compare.md (the table and the runs), compare.json, and the loss curve when known."""
    folder.mkdir(parents=True, exist_ok=True)
    table = markdown_table(result.rows)
    runs = "\n".join(
        f"- {run.measurement}, {run.side}: run {run.run_id} ({run.status})" for run in result.runs
    )
    heading = (
        "# IRFT before/after\n\nAccuracy in %; tuned minus base in points with a paired 95% "
        "interval; McNemar's exact test. RuleBench: zero-shot, a few rules, NL.\n\n"
        f"base: `{result.base.describe()}`\n\n"
        f"tuned: `{result.tuned.describe()}`\n\n"
    )
    markdown = folder / "compare.md"
    markdown.write_text(f"{heading}{table}\nRuns:\n{runs}\n")
    written = [markdown, folder / "compare.json"]
    written[1].write_text(result.model_dump_json(indent=2) + "\n")
    points = loss_points(result.tuned)
    title = f"IRFT loss: {result.tuned.describe()}"
    return written + loss_curve(points, title, folder / "loss-curve")
