"""One task on several models as a batch (`run TASK -m A -m B`): its runs, folder and title."""

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from rulebench.engine.run_settings import RunSettings
from rulebench.engine.task_config import TaskConfig
from rulebench.models.registry import DEFAULT_MODEL
from rulebench.study.batch import ModelChoice, PlannedRun, batch_id, plan_runs

DEFAULT_OUTPUT = Path("rulebench-experiment")
"""Where a batch's comparison goes unless told: a folder of its own in here."""


class ModelBatch(NamedTuple):
    """The runs of one task on every model, and where and under what title they are compared."""

    planned: list[PlannedRun]
    default_output: Path
    """A folder in `DEFAULT_OUTPUT` named for the task and the batch id (the same runs, the
    same folder: running the batch again resumes it and rewrites its comparison)."""
    title: str
    """"inferential on 2 models" (", shard I/N" for a shard of the items)."""


def plan_model_batch(
    task: str,
    config: TaskConfig,
    models: Sequence[str],
    settings: RunSettings,
    label: Callable[[str], str] = str,
) -> ModelBatch:
    """The batch of `task` on each of `models` (none: the embedded model), all with `settings`.

    Raises:
        ConfigError: a bad run setting, named by `label` (`study.batch.plan_runs`).
    """
    choices = [ModelChoice(model, model, settings) for model in models or (DEFAULT_MODEL,)]
    planned = plan_runs(task, config, choices, label=label)
    title = f"{task} on {len(planned)} model{'s' if len(planned) != 1 else ''}"
    if settings.shard is not None:
        title += f", shard {settings.shard}"
    return ModelBatch(planned, DEFAULT_OUTPUT / f"{task}-{batch_id(planned)}", title)
