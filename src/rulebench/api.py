"""The Python API: run a task on a model, resume it and read its results, as the CLI does.

    import rulebench

    config = {"tasks": ["kinship"], "per_group": 5}   # InferentialConfig's fields
    report = rulebench.run("inferential", "scripted/echo", config=config)
    rows = rulebench.results(report.run.id)          # one dict per item, as `runs export` writes
    frame = rulebench.results_frame(report.run.id)   # the same as a pandas DataFrame
    built = rulebench.build_report(report.run.id, folder="report/")  # .markdown, .numbers...
    names = [task.name for task in rulebench.list_tasks()]  # as `rulebench list` shows them

A task's config is its model or a dict of its fields; `run scenarios` and `run inferential`
also take their command line's options, turned into the config as the CLI turns them
(`--preset`, `--full`; `--grid paper`, `--cot both`):

    from rulebench.api import InferentialOptions, ScenarioOptions

    rulebench.run("scenarios", "scripted/echo", config=ScenarioOptions(preset="published-v3"))
    rulebench.run("inferential", "scripted/echo", config=InferentialOptions(cot="both"))

Every call is synchronous and also works inside a running event loop (a Jupyter notebook):
the run then goes on in a worker thread with its own loop. Runs land in the same store as the
CLI's (`store=`, else $RULEBENCH_STORE, else ./rulebench-results/rulebench.sqlite), so the CLI
can show, resume and report them.
"""

import asyncio
import concurrent.futures
import logging
import os
from collections.abc import Coroutine, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, Unpack

from pydantic import BaseModel, JsonValue

from rulebench.core.errors import ConfigError
from rulebench.core.messages import ReasoningOptions
from rulebench.core.pricing import PriceTable
from rulebench.core.shards import Shard, parse_shard
from rulebench.core.validation import validate_into
from rulebench.engine.dispatch_order import DispatchOrder
from rulebench.engine.evaluation import evaluate
from rulebench.engine.export.run_export import flat_row
from rulebench.engine.run_settings import RunSettings
from rulebench.engine.run_specs import make_spec, stored_spec
from rulebench.engine.runner import RunReport, RunSpec
from rulebench.engine.store.database import Store
from rulebench.engine.task_config import TaskConfig
from rulebench.inferential.run_options import InferentialOptions, prepare_inferential
from rulebench.listing import models as model_listing
from rulebench.listing import plugins as plugin_listing
from rulebench.listing import scenarios as scenario_listing
from rulebench.listing import suites as suite_listing
from rulebench.listing import tasks as task_listing
from rulebench.report.build import BuiltReport
from rulebench.report.by_task import ReportOptions, report_for
from rulebench.report.kinds import DEFAULT_EXTRACT, ExtractMode
from rulebench.report.usage import load_prices
from rulebench.scenarios.run_options import ScenarioOptions, prepare_scenarios

if TYPE_CHECKING:
    import pandas

logger = logging.getLogger(__name__)
_T = TypeVar("_T")
StorePath = Path | str | None


class RunOptions(TypedDict, total=False):
    """How to run, beside the task's own config; every key is optional.

    The fields of `RunSettings`, some also in a friendlier spelling (a shard as text);
    tests/engine/test_run_settings.py holds the keys to its fields.
    """

    max_tokens: int
    """Reply limit (default: the task's)."""
    temperature: float
    sampling_seed: int
    concurrency: int
    limit: int
    """Run only the first N items."""
    model_args: dict[str, str]
    """Backend settings, as `-M key=value` gives them."""
    base_url: str
    use_cache: bool
    reasoning: ReasoningOptions | Mapping[str, JsonValue]
    """The thinking switch, effort and think tags, e.g. {"thinking": False, "effort": "low"}
    (`ReasoningOptions`)."""
    order: DispatchOrder
    """"grouped": send items sharing their beginning together (`RunSettings.order`)."""
    shard: Shard | str
    """Run only this piece of the items, as `--shard`: "2/4" (shard 2 of 4, from 1), "auto"
    (a Slurm job array's index and count) or "auto/4" (a Kubernetes indexed Job's index), or a
    `Shard`. Each shard is a run of its own; `rulebench runs merge` joins their stores."""


def run(
    task: str,
    model: str | None = None,
    *,
    config: BaseModel | Mapping[str, JsonValue] | None = None,
    store: StorePath = None,
    **options: Unpack[RunOptions],
) -> RunReport:
    """Run `task` (e.g. "inferential", "scenarios", "smoke") on a model spec and store it.

    Args:
        task: a task name, as `rulebench list` shows them.
        model: a model spec such as "openai/gpt-4o-mini"; default the embedded model.
        config: the task's config: its pydantic model (e.g. `InferentialConfig`) or a dict;
            for scenarios also `ScenarioOptions`, the options of `run scenarios`, and for
            inferential `InferentialOptions`, those of `run inferential`.
        store: the results store file.
        **options: see `RunOptions`.

    Returns:
        How the run went; its results are in the store (`results`, `results_frame`).
    """
    spec = run_spec(task, model, config, options)
    return _sync(_evaluate(spec, store, None))


def resume(run_id: str, *, store: StorePath = None, concurrency: int | None = None) -> RunReport:
    """Finish a stored run (only its missing and failed items run), as `run --resume` does."""
    with Store(store, readonly=True) as db:
        spec, run_id = stored_spec(db, run_id), db.get_run(run_id).id
    if concurrency is not None:
        spec = spec.with_concurrency(concurrency)
    return _sync(_evaluate(spec, store, run_id))


def results(run_id: str, *, store: StorePath = None) -> list[dict[str, JsonValue]]:
    """A run's results as flat rows (one per item, the columns of `runs export -f csv`)."""
    with Store(store, readonly=True) as db:
        run = db.get_run(run_id)
        return [flat_row(run.id, result) for result in db.iter_results(run.id)]


def results_frame(run_id: str, *, store: StorePath = None) -> "pandas.DataFrame":
    """A run's results as a pandas DataFrame (needs pandas: `pip install pandas`)."""
    try:
        import pandas
    except ImportError:
        raise ConfigError("results_frame needs pandas: pip install pandas") from None
    return pandas.DataFrame(results(run_id, store=store))


def build_report(
    run_ids: str | Sequence[str],
    *,
    store: StorePath = None,
    folder: Path | str | None = None,
    extract: ExtractMode = DEFAULT_EXTRACT,
    prices: PriceTable | Path | str | None = None,
) -> BuiltReport:
    """The report of one run, or the comparison of several of the same task.

    Its kind follows the runs' task (inferential, scenarios or judge); runs of different
    tasks are refused together. `folder` receives report.md (and an inferential report's
    plots; without a folder an inferential report computes only the numbers); `extract`
    re-scores inferential runs in that extraction mode; `prices` (a table or its TOML/JSON
    file) adds each run's cost to its token totals.
    """
    table = load_prices(Path(prices)) if isinstance(prices, str | Path) else prices
    ids = [run_ids] if isinstance(run_ids, str) else list(run_ids)
    options = ReportOptions(Path(folder) if folder else None, extract, prices=table)
    with Store(store, readonly=True) as db:
        return report_for(db, ids, options)


def list_tasks() -> list[task_listing.ListedTask]:
    """The tasks `run` takes, with the command that starts each (`rulebench list tasks`)."""
    return task_listing.list_tasks()


def list_inferential() -> list[task_listing.InferentialEntry]:
    """The inferential tasks `config={"tasks": [...]}` takes (`rulebench list inferential`).

    A plugin's task that fails to load is a `BrokenInferentialTask` with its error.
    """
    return task_listing.list_inferential()


def list_scenarios() -> list[scenario_listing.ListedScenario]:
    """The scenarios with their rules and releases (`rulebench list scenarios`)."""
    return scenario_listing.list_scenarios()


def list_suites() -> list[suite_listing.ListedSuite]:
    """The generated suites with their sizes, then the official releases' (`list suites`)."""
    return suite_listing.list_suites()


def list_models() -> list[model_listing.ListedProvider]:
    """The built-in model providers a spec names (`rulebench models`); plugins': `list_plugins`."""
    return model_listing.list_models()


def list_plugins() -> list[plugin_listing.PluginEntry]:
    """Tasks, scenarios and model providers from other packages (`rulebench list plugins`)."""
    return plugin_listing.list_plugins()


def run_spec(
    task: str,
    model: str | None,
    config: BaseModel | Mapping[str, JsonValue] | None,
    options: RunOptions,
) -> RunSpec:
    """The storable description of a run, built as the CLI builds it (`run_specs.make_spec`)."""
    values: dict[str, object] = dict(options)
    if isinstance(shard := options.get("shard"), str):
        values["shard"] = _parsed_shard(task, shard)
    settings = validate_into(RunSettings, values, f"run {task}")
    if isinstance(config, ScenarioOptions):
        config, settings = _from_scenario_options(task, config, settings)
    elif isinstance(config, InferentialOptions):
        if task != "inferential":
            raise ConfigError(
                f"run {task}: InferentialOptions are the options of the inferential task"
            )
        config = prepare_inferential(config)
    if isinstance(config, BaseModel) and not isinstance(config, TaskConfig):
        raise ConfigError(f"run {task}: config must be the task's config model or a dict")
    return make_spec(task, model, config, settings)


def _from_scenario_options(
    task: str, options: ScenarioOptions, settings: RunSettings
) -> tuple[TaskConfig, RunSettings]:
    """The config and settings `run scenarios` makes of these options; its warnings logged."""
    if task != "scenarios":
        raise ConfigError(f"run {task}: ScenarioOptions are the options of the scenarios task")
    prepared = prepare_scenarios(options, settings.max_tokens, settings.temperature)
    for warning in prepared.warnings:
        logger.warning("%s", warning)
    return prepared.config, settings.model_copy(update={"max_tokens": prepared.max_tokens})


def _parsed_shard(task: str, text: str) -> Shard:
    """A shard as text, read as `--shard` reads it (with this process's environment for auto)."""
    try:
        return parse_shard(text, os.environ)
    except ConfigError as exc:  # its line names the CLI's option: this caller gave `shard=`
        raise ConfigError(f"run {task}: {str(exc).removeprefix('--')}") from None


async def _evaluate(spec: RunSpec, store: StorePath, resume_id: str | None) -> RunReport:
    with Store(store) as db:
        return await evaluate(spec, db, None, resume_id)


def _sync(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run to completion from synchronous code, even where an event loop is running already."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    # Jupyter runs its own loop in this thread: run ours in a worker thread instead.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
