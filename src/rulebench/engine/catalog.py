"""Every task rulebench can run, by name (imported only when used), and running one."""

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from pydantic import BaseModel, JsonValue, ValidationError

from rulebench.core.did_you_mean import did_you_mean
from rulebench.core.errors import ConfigError, StoreError
from rulebench.core.messages import GenerateConfig
from rulebench.core.run_kinds import NOT_EVALUATIONS
from rulebench.engine.run_settings import RunSettings as RunSettings  # where callers import it
from rulebench.engine.runner import ProgressReporter, Runner, RunReport, RunSpec
from rulebench.engine.store.database import Store
from rulebench.engine.task import Task
from rulebench.engine.task_config import TaskConfig, parse_task_config
from rulebench.models.base import BackendOptions, ChoiceScorer, Model
from rulebench.models.registry import create_model, resolve_spec
from rulebench.plugins.lazy_registry import import_target


class TaskEntry(NamedTuple):
    """A registered task: where its class and config live and how its results are summarised."""

    target: str
    """"module:Class"; the class is built with the task's stored config as keyword arguments."""
    config: str
    """"module:Class" of the task's `TaskConfig`: the typed fields the CLI, the Python API and
    a stored run fill in, and the task's generation defaults."""
    description: str
    group_by: str | None = None
    """Metadata field the results table groups by."""
    command: str | None = None
    """How a person starts it, where that is not `rulebench run <name>`."""


TASKS: dict[str, TaskEntry] = {
    "smoke": TaskEntry(
        "rulebench.checks.smoke:SmokeTask",
        "rulebench.checks.smoke:SmokeConfig",
        "6 built-in items (4 rule questions, 2 secret-keeping conversations): a pipeline check",
        group_by="kind",
    ),
    "inferential": TaskEntry(
        "rulebench.inferential.task:InferentialTask",
        "rulebench.inferential.task:InferentialConfig",
        "RuleBench: if-then rules, one of which applies (generated kinship and stringgame, "
        "or the official data)",
        group_by="cell",
    ),
    "scenarios": TaskEntry(
        "rulebench.scenarios.task:ScenarioTask",
        "rulebench.scenarios.task:ScenarioConfig",
        "RuLES: multi-turn games and security scenarios, checked by programmatic evaluators",
        group_by="group",
    ),
    "judge": TaskEntry(
        "rulebench.scenarios.judge:JudgeTask",
        "rulebench.scenarios.judge:JudgeConfig",
        "Error detection: pass or fail for one exchange of a stored scenarios run",
        group_by="behavior",
    ),
    "irft-test": TaskEntry(
        "rulebench.train.eval_task:IrftTestTask",
        "rulebench.train.eval_task:IrftTestConfig",
        "IRFT: a test split of a `rulebench train data` folder (in-distribution or held-out "
        "StringGame rules)",
        group_by="rules",
        command="rulebench train compare",
    ),
    "irft-star": TaskEntry(
        "rulebench.train.star_task:StarTask",
        "rulebench.train.star_task:StarConfig",
        "IRFT STaR: one attempt of a teacher at reasoning out training examples",
        command="rulebench train star",
    ),
    "loadtest": TaskEntry(
        "rulebench.checks.loadtest:LoadTestTask",
        "rulebench.checks.loadtest:LoadTestConfig",
        "N synthetic 'repeat this token' items: load tests and engine benchmarks",
    ),
}


class NotAnEvaluation(StoreError):
    """A stored run the runner did not start (a tuning run, an attack).

    Its own command resumes it, which a front end names (`cli.resume_commands`).
    """

    def __init__(self, run_id: str, task: str) -> None:
        super().__init__(
            f"run {run_id} is a {task} run, not an evaluation: resume it with the command "
            "that started it"
        )
        self.run_id = run_id
        self.task = task


def task_entry(name: str) -> TaskEntry:
    """Look a task up, suggesting the closest name if it is unknown."""
    if name in TASKS:
        return TASKS[name]
    raise ConfigError(
        f"unknown task '{name}'.{did_you_mean(name, TASKS)} Known tasks: {', '.join(TASKS)}"
    )


def _load(target: str) -> Any:
    return import_target(target)


def config_type(name: str) -> type[TaskConfig]:
    """The typed config model of task `name`."""
    found: type[TaskConfig] = _load(task_entry(name).config)
    return found


def task_config(
    name: str, config: TaskConfig | Mapping[str, JsonValue] | None = None
) -> TaskConfig:
    """Task `name`'s config, validated into its model; a bad field is one ConfigError line."""
    model = config_type(name)
    if isinstance(config, model):
        return config
    if isinstance(config, BaseModel):
        raise ConfigError(f"task {name} takes {model.__name__}, not {type(config).__name__}")
    return parse_task_config(model, name, model.load_inputs(config or {}))


def default_max_tokens(
    name: str, config: TaskConfig | Mapping[str, JsonValue] | None = None
) -> int:
    """The reply limit a run of task `name` with `config` uses unless told otherwise.

    The one place the CLI, the Python API and play take it from, so the same run sends the
    same requests however it was started.
    """
    return task_config(name, config).generation_defaults().max_tokens


def protocol_notes(spec: RunSpec) -> tuple[str, ...]:
    """What the spec's run does beyond its decoding, as its task's config says (the run line)."""
    return task_config(spec.task, spec.task_config).protocol_notes()


def build_task(name: str, config: TaskConfig | Mapping[str, JsonValue] | None = None) -> Task:
    """Build a task from its name and config (as stored with a run, for --resume)."""
    validated = task_config(name, config)
    task_class = _load(task_entry(name).target)
    task: Task = task_class(**validated.model_dump(mode="json"))
    return task


def make_spec(
    task: str,
    model: str | None,
    config: TaskConfig | Mapping[str, JsonValue] | None,
    settings: RunSettings,
    label: Callable[[str], str] = str,
) -> RunSpec:
    """The storable description of a run, as the CLI and the Python API both build it.

    The task's typed config, its generation defaults where `settings` leaves them open, and
    the shared settings.

    Args:
        task: a task name (`TASKS`).
        model: a model spec; default the embedded model.
        config: the task's config model, or fields for it.
        settings: the shared run settings.
        label: how an error names a field (the CLI spells it as its option).

    Raises:
        ConfigError: an unknown task or model provider, or a value out of range (one line).
    """
    spec_model = resolve_spec(model)  # a bad spec fails before anything is printed or stored
    named = settings.model_dump(include={"max_tokens", "temperature", "limit"})
    typed = task_config(task, config).with_run_settings(named).resolved_for(spec_model)
    defaults = typed.generation_defaults()
    temperature = defaults.temperature if settings.temperature is None else settings.temperature
    try:
        return RunSpec(
            task=task,
            task_config=typed.model_dump(mode="json"),
            model=spec_model,
            model_args=settings.model_args,
            base_url=settings.base_url,
            generate=GenerateConfig(
                max_tokens=settings.max_tokens or defaults.max_tokens,
                temperature=temperature,
                seed=settings.sampling_seed,
                reasoning=settings.reasoning,
            ),
            concurrency=settings.concurrency or typed.default_concurrency,
            limit=settings.limit,
            use_cache=settings.use_cache,
            shard=settings.shard,
        )
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            field = str(error["loc"][-1]) if error["loc"] else "?"
            problems.append(f"{label(field)}: {error['msg']} (got {error['input']!r})")
        raise ConfigError(f"run {task}: {'; '.join(problems)}") from None


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
    need = task_config(spec.task, spec.task_config).choice_scoring()
    if need is not None and not isinstance(model, ChoiceScorer):
        raise ConfigError(
            f"{need} needs a model that scores answers by log-likelihood; {spec.model} "
            "cannot: use a local backend (llamacpp/... or hf/...)"
        )


def stored_spec(store: Store, run_id: str) -> RunSpec:
    """The spec a stored run was started with, for --resume.

    Raises:
        StoreError: a run the runner did not start (a tuning run, an attack), naming the
            command that resumes it, or a configuration this version cannot read.
    """
    run = store.get_run(run_id)
    if run.task in NOT_EVALUATIONS:
        raise NotAnEvaluation(run.id, run.task)
    if "shards" in run.notes:
        raise StoreError(
            f"run {run.id} was joined from shards by `rulebench runs merge`: finish the shard "
            "runs in their own stores (`rulebench runs show` names them), then merge again"
        )
    try:
        return RunSpec.model_validate(run.config)
    except ValidationError as exc:
        raise StoreError(
            f"run {run.id} has a configuration this version cannot read: {exc}"
        ) from None
