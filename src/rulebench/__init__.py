"""rulebench: measure and improve how large language models follow rules.

The Python API (`rulebench.run`, `resume`, `results`, `results_frame`, `build_report`, and the
`list_*` functions of what can be run) lives in `rulebench.api`; it is imported on first use, so
`import rulebench` and the CLI stay quick.
"""

import importlib
from typing import TYPE_CHECKING, Any

from rulebench.core.version import __version__

if TYPE_CHECKING:
    from rulebench.api import (
        RunOptions,
        build_report,
        list_inferential,
        list_models,
        list_plugins,
        list_scenarios,
        list_suites,
        list_tasks,
        results,
        results_frame,
        resume,
        run,
    )

__all__ = [
    "RunOptions",
    "__version__",
    "build_report",
    "list_inferential",
    "list_models",
    "list_plugins",
    "list_scenarios",
    "list_suites",
    "list_tasks",
    "results",
    "results_frame",
    "resume",
    "run",
]
_API = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> Any:
    if name in _API:
        # Imported by name on first use: the CLI starts without the API.
        return getattr(importlib.import_module("rulebench.api"), name)
    raise AttributeError(f"module 'rulebench' has no attribute {name!r}")
