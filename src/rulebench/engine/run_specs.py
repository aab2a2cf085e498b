"""A run's storable description: built from a task config and run settings, and read back.

`make_spec` is how the CLI, the Python API, experiment files and play describe a new run, so
a run started any way stores the same spec; `stored_spec` reads a stored run's spec back for
`--resume`.
"""

from collections.abc import Callable, Mapping

from pydantic import JsonValue, ValidationError

from rulebench.core.errors import ConfigError, StoreError
from rulebench.core.messages import GenerateConfig
from rulebench.core.run_kinds import NOT_EVALUATIONS
from rulebench.engine.catalog import task_config
from rulebench.engine.run_settings import RunSettings
from rulebench.engine.runner import RunSpec
from rulebench.engine.store.database import Store
from rulebench.engine.task_config import TaskConfig
from rulebench.models.registry import resolve_spec


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
    loaded = task_config(task, config).with_inputs_loaded()
    typed = loaded.with_run_settings(named).resolved_for(spec_model)
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
            adaptive_concurrency=settings.concurrency is None and typed.adapts_concurrency,
            order=settings.order,
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
