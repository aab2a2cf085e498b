"""Every inferential task by name: a lazy "module:attr" entry, imported on first use.

Adding a task means writing its module (which declares one `TaskDefinition`) and adding its
line here; nothing else lists tasks. Names are known without importing anything, so help texts
and did-you-mean messages cost nothing.
"""

import difflib
import functools
import importlib

from rulebench.core.errors import ConfigError
from rulebench.inferential.definition import TaskDefinition

_TASKS = "rulebench.inferential.tasks"

GENERATED: dict[str, str] = {
    "kinship": f"{_TASKS}.kinship.definition:KINSHIP",
    "stringgame": f"{_TASKS}.stringgame:STRINGGAME",
}
"""Tasks rulebench generates itself (seeded, any size, offline)."""

OFFICIAL: dict[str, str] = {
    "clutrr": f"{_TASKS}.clutrr:CLUTRR",
    "clutrr-cf": f"{_TASKS}.clutrr:CLUTRR_CF",
    "deer": f"{_TASKS}.deer:DEER",
    "theoremQA": f"{_TASKS}.theoremqa:THEOREMQA",
    "ulogic": f"{_TASKS}.ulogic:ULOGIC",
    "ulogic-cf": f"{_TASKS}.ulogic:ULOGIC_CF",
    "law": f"{_TASKS}.law:LAW",
    "law-cf": f"{_TASKS}.law:LAW_CF",
    "salad": f"{_TASKS}.salad:SALAD",
    "salad-cf": f"{_TASKS}.salad:SALAD_CF",
}
"""The RuleBench release's datasets, read from the user's copy (folder name = task name)."""

TASKS: dict[str, str] = GENERATED | OFFICIAL
"""Every task name -> where its definition lives."""


def task_names() -> tuple[str, ...]:
    """Every task name: generated first, then the release's datasets in its order."""
    return tuple(TASKS)


def is_official(name: str) -> bool:
    """Whether `name` is one of the release's datasets (read from --data-root)."""
    return name in OFFICIAL


@functools.cache
def task_definition(name: str) -> TaskDefinition:
    """The definition of task `name`, imported on first use."""
    target = TASKS.get(name)
    if target is None:
        raise ConfigError(unknown_task_message(name))
    module_name, _, attr = target.partition(":")
    definition = getattr(importlib.import_module(module_name), attr)
    if not isinstance(definition, TaskDefinition) or definition.name != name:
        raise TypeError(f"{target} is not the TaskDefinition of task {name!r}")
    return definition


def unknown_task_message(name: str) -> str:
    """Name the unknown task, the closest known one (case-insensitively) and all of them."""
    by_lower = {known.lower(): known for known in TASKS}
    close = difflib.get_close_matches(name.lower(), by_lower, n=1)
    hint = f" Did you mean '{by_lower[close[0]]}'?" if close else ""
    return (
        f"unknown inferential task '{name}'.{hint} Generated tasks: {', '.join(GENERATED)}; "
        f"official datasets (need --data-root): {', '.join(OFFICIAL)}"
    )
