"""`rulebench --include PATH`: task modules from a folder, without packaging them.

The top-level option (or RULEBENCH_INCLUDE, folders separated like PATH) registers every
`TaskDefinition` the folder's modules declare before any command runs, so `run inferential -t`,
`list` and `report` all find them. A module that fails to import is one warning line naming the
file; the folder's other tasks still work.
"""

import logging
from pathlib import Path
from typing import Annotated

import typer

logger = logging.getLogger(__name__)

INCLUDE_ENV = "RULEBENCH_INCLUDE"

IncludeOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--include",
        envvar=INCLUDE_ENV,
        metavar="FOLDER",
        help="A folder of inferential task modules (*.py declaring TaskDefinitions) to add "
        "to the built-in tasks; repeatable.",
        show_default=False,
    ),
]


def include_folders(folders: list[Path] | None) -> None:
    """Register the tasks of every folder given, warning once per module that fails."""
    if not folders:
        return
    from rulebench.inferential.registry import include_tasks

    for folder in folders:
        for problem in include_tasks(folder.resolve()):
            logger.warning("--include: %s", problem)
