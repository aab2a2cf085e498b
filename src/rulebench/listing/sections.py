"""The sections of `rulebench list`, by name, each read from its listing module."""

from collections.abc import Callable, Sequence
from typing import Literal

from rulebench.listing.entry import Listed
from rulebench.listing.plugins import list_plugins
from rulebench.listing.scenarios import list_gcg_targets, list_scenarios, list_strict_fixes
from rulebench.listing.suites import list_suites
from rulebench.listing.tasks import list_inferential, list_tasks

Section = Literal[
    "tasks", "inferential", "scenarios", "suites", "strict-fixes", "gcg-targets", "plugins"
]
SECTIONS: tuple[Section, ...] = (
    "tasks",
    "inferential",
    "scenarios",
    "suites",
    "strict-fixes",
    "gcg-targets",
    "plugins",
)

_LISTERS: dict[Section, Callable[[], Sequence[Listed]]] = {
    "tasks": list_tasks,
    "inferential": list_inferential,
    "scenarios": list_scenarios,
    "suites": list_suites,
    "strict-fixes": list_strict_fixes,
    "gcg-targets": list_gcg_targets,
    "plugins": list_plugins,
}


def list_section(section: Section) -> Sequence[Listed]:
    """The entries of one section, read from the registries now."""
    return _LISTERS[section]()
