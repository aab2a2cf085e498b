"""Every task rulebench can run, by name (imported only when used): its class and its config.

Running one is `engine.evaluation`; describing a run and reading it back, `engine.run_specs`.
"""

from collections.abc import Mapping
from typing import Any, NamedTuple

from pydantic import BaseModel, JsonValue

from rulebench.core.did_you_mean import did_you_mean
from rulebench.core.errors import ConfigError
from rulebench.engine.runner import RunSpec
from rulebench.engine.task import Task
from rulebench.engine.task_config import TaskConfig, parse_task_config
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
        "rulebench.scenarios.config:ScenarioConfig",
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
