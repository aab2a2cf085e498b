"""Every inferential task by name: a lazy "module:attr" entry, imported on first use.

Adding a built-in task means writing its module (which declares one `TaskDefinition`) and
adding its line here; a task from another package registers the same "module:attr" string as
an entry point in the `rulebench.tasks` group, and a folder of task modules is added with
`include_tasks` (`rulebench --include PATH`). Names are known without importing anything, so
help texts and did-you-mean messages cost nothing.
"""

from pathlib import Path

from rulebench.core.errors import ConfigError
from rulebench.inferential.definition import TaskDefinition
from rulebench.plugins.foreign_code import describe_failure, import_folder
from rulebench.plugins.lazy_registry import LazyRegistry

_TASKS = "rulebench.inferential.tasks"
TASKS_GROUP = "rulebench.tasks"
"""The entry-point group of inferential tasks from other packages."""

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


def _check(name: str, found: object) -> TaskDefinition:
    if not isinstance(found, TaskDefinition):
        raise TypeError(f"it is a {type(found).__name__}, not a TaskDefinition")
    if found.name != name:
        raise TypeError(f"its TaskDefinition is named '{found.name}', not '{name}'")
    return found


def _known(names: tuple[str, ...]) -> str:
    others = [name for name in names if name not in GENERATED and name not in OFFICIAL]
    plugins = f"; from plugins: {', '.join(others)}" if others else ""
    return (
        f"Generated tasks: {', '.join(GENERATED)}; official datasets (need --data-root): "
        f"{', '.join(OFFICIAL)}{plugins}"
    )


TASKS: LazyRegistry[TaskDefinition] = LazyRegistry(
    "inferential task", GENERATED | OFFICIAL, TASKS_GROUP, _check, _known
)
"""Every task name -> where its definition lives: built-ins, plugins, included folders."""


def task_names() -> tuple[str, ...]:
    """Every task name: generated first, the release's datasets in its order, then plugins."""
    return TASKS.names()


def is_official(name: str) -> bool:
    """Whether `name` is read from data files (the release's datasets, or a plugin's)."""
    if name in OFFICIAL:
        return True
    return name in TASKS and name not in GENERATED and task_definition(name).load is not None


def task_definition(name: str) -> TaskDefinition:
    """The definition of task `name`, imported on first use."""
    return TASKS.load(name)


def include_tasks(folder: Path) -> list[str]:
    """Register every `TaskDefinition` declared by the modules of `folder` (no packaging).

    Returns:
        One line per module that failed to import (named by its file); the others' tasks are
        registered all the same.

    Raises:
        ConfigError: the folder is missing or holds no modules, or a module declares a
            built-in task's name.
    """
    imported = list(import_folder(folder))
    if not imported:
        raise ConfigError(f"--include {folder}: no task modules (*.py) in it")
    problems = []
    for path, module in imported:
        if isinstance(module, BaseException):
            problems.append(f"{path}: failed to import: {describe_failure(module)}")
            continue
        for attr, value in vars(module).items():
            if not isinstance(value, TaskDefinition) or attr.startswith("_"):
                continue
            if value.name in GENERATED | OFFICIAL and value is task_definition(value.name):
                continue  # a built-in task the module imported, not one it declares
            TASKS.add(value.name, f"{module.__name__}:{attr}", f"--include {folder}")
    return problems
