"""Loading any task by name: our generators, or an official dataset from the user's folder."""

from pathlib import Path

from rulebench.core.errors import ConfigError
from rulebench.core.rules import TaskData
from rulebench.inferential.registry import GENERATED, task_definition

DEFAULT_GENERATED_SIZE = 100
DEFAULT_TASKS: tuple[str, ...] = tuple(GENERATED)
"""What a run evaluates when it names no task: the generated tasks (offline)."""


def load_task(name: str, n: int | None, seed: int, data_root: Path | None) -> TaskData:
    """Generate (n samples, seeded) or load (the first n, or all) the task `name`."""
    definition = task_definition(name)
    if definition.generate is not None:
        return definition.generate(n or DEFAULT_GENERATED_SIZE, seed)
    if data_root is None:
        raise ConfigError(
            f"task '{name}' is official RuleBench data: give --data-root, the release's data "
            "folder in your clone (<clone>/dataset, which holds clutrr/, deer/, theoremQA/...)"
        )
    from rulebench.inferential.tasks.official import load_official

    data = load_official(data_root, name)
    if n is not None:
        data = data.model_copy(update={"samples": data.samples[:n]})
    return data


def judging_context(name: str, data_root: Path | None) -> tuple[str, ...]:
    """What the task's paper scorer needs beside each sample (law's charge list), else ()."""
    find = task_definition(name).judging_context
    if find is None or data_root is None:
        return ()
    return find(data_root)
