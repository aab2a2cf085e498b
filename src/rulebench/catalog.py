"""Every task rulebench can run, by name (imported only when used), and running one."""

import difflib
import importlib
from typing import NamedTuple

from pydantic import JsonValue, ValidationError

from rulebench.core.errors import ConfigError, StoreError
from rulebench.engine.runner import ProgressReporter, Runner, RunReport, RunSpec
from rulebench.engine.store import Store
from rulebench.engine.task import Task
from rulebench.models.base import BackendOptions, ChoiceScorer, Model
from rulebench.models.registry import create_model


class TaskEntry(NamedTuple):
    """A registered task: where its class lives and how its results are best summarised."""

    target: str
    """"module:Class"; the class is built with the task's stored config as keyword arguments."""
    description: str
    group_by: str | None = None
    """Metadata field the results table groups by."""
    max_tokens: int | str = 256
    """Default reply limit: long enough for the task's answers, short enough for a CPU model;
    or "module:function" that computes it from the task's config (CoT needs more room)."""


TASKS: dict[str, TaskEntry] = {
    "smoke": TaskEntry(
        "rulebench.smoke:SmokeTask",
        "6 built-in items (4 rule questions, 2 secret-keeping conversations): a pipeline check",
        group_by="kind",
        max_tokens=48,
    ),
    "inferential": TaskEntry(
        "rulebench.inferential.task:InferentialTask",
        "RuleBench: if-then rules, one of which applies (generated kinship and stringgame, "
        "or the official data)",
        group_by="cell",
        max_tokens="rulebench.inferential.task:default_max_tokens",
    ),
    "scenarios": TaskEntry(
        "rulebench.scenarios.task:ScenarioTask",
        "RuLES: 14 multi-turn games and security scenarios, checked by programmatic evaluators",
        group_by="group",
        max_tokens="rulebench.scenarios.task:default_max_tokens",
    ),
    "judge": TaskEntry(
        "rulebench.scenarios.judge:JudgeTask",
        "Error detection: pass or fail for one exchange of a stored scenarios run",
        group_by="behavior",
        max_tokens=16,
    ),
    "loadtest": TaskEntry(
        "rulebench.loadtest:LoadTestTask",
        "N synthetic 'repeat this token' items: load tests and engine benchmarks",
        max_tokens=16,
    ),
}


def task_entry(name: str) -> TaskEntry:
    """Look a task up, suggesting the closest name if it is unknown."""
    if name in TASKS:
        return TASKS[name]
    close = difflib.get_close_matches(name, TASKS, n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    raise ConfigError(f"unknown task '{name}'.{hint} Known tasks: {', '.join(TASKS)}")


def default_max_tokens(name: str, config: dict[str, JsonValue] | None = None) -> int:
    """The reply limit a run of task `name` with `config` uses unless told otherwise.

    The one place the CLI, the Python API and play take it from, so the same run sends the
    same requests however it was started.
    """
    limit = task_entry(name).max_tokens
    if isinstance(limit, int):
        return limit
    module_name, _, function = limit.partition(":")
    compute = getattr(importlib.import_module(module_name), function)
    try:
        return int(compute(config or {}))
    except ValidationError as exc:
        raise ConfigError(f"task {name}: invalid config: {exc.errors()[0]['msg']}") from None


def build_task(name: str, config: dict[str, JsonValue] | None = None) -> Task:
    """Build a task from its name and config (as stored with a run, for --resume)."""
    module_name, _, class_name = task_entry(name).target.partition(":")
    task_class = getattr(importlib.import_module(module_name), class_name)
    task: Task = task_class(**(config or {}))
    return task


async def evaluate(
    spec: RunSpec,
    store: Store,
    progress: ProgressReporter | None = None,
    resume_id: str | None = None,
) -> RunReport:
    """Build the task and model a spec names, run them, and release the model."""
    task = build_task(spec.task, spec.task_config)
    model = create_model(spec.model, BackendOptions(args=spec.model_args, base_url=spec.base_url))
    try:
        check_model_fits(spec, model)
        return await Runner(store, progress).run(task, model, spec, resume_id)
    finally:
        await model.aclose()


def check_model_fits(spec: RunSpec, model: Model) -> None:
    """Refuse a model that cannot do what the run asks, before any item runs.

    Otherwise every item would fail the same way and be recorded as an error to retry.
    """
    if spec.task_config.get("scoring") == "loglik" and not isinstance(model, ChoiceScorer):
        raise ConfigError(
            f"--scoring loglik needs a model that scores answers by log-likelihood; "
            f"{spec.model} cannot: use a local backend (llamacpp/... or hf/...) or "
            "--scoring generate"
        )


def stored_spec(store: Store, run_id: str) -> RunSpec:
    """The spec a stored run was started with, for --resume."""
    run = store.get_run(run_id)
    try:
        return RunSpec.model_validate(run.config)
    except ValidationError as exc:
        raise StoreError(
            f"run {run.id} has a configuration this version cannot read: {exc}"
        ) from None
