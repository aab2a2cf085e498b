"""Running a spec: its task and model built, the model checked fit, the runner started."""

from rulebench.core.errors import ConfigError
from rulebench.engine.catalog import build_task, task_config
from rulebench.engine.runner import ProgressReporter, Runner, RunReport, RunSpec
from rulebench.engine.store.database import Store
from rulebench.models.base import BackendOptions, ChoiceScorer, Model
from rulebench.models.registry import create_model


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
