"""Tasks, scenarios and model backends from other packages or `--include` folders.

Each is loaded, so a broken one shows its error here while the others still work.
"""

from rulebench.core.errors import RulebenchError
from rulebench.listing.entry import Listed


class ListedPlugin(Listed):
    """A registered plugin and the option that names it."""

    kind: str
    """The registry's kind: "inferential task", "scenario" or "model provider"."""
    name: str
    package: str
    target: str
    """"module:attr" of what it registers."""
    use: str
    """How a command names it: `-t NAME`, `--scenario NAME` or `-m NAME/<name>`."""
    error: str | None = None
    """Why it failed to load; None when it loads."""


class PluginProblem(Listed):
    """A plugin source that could not be read at all (a bad entry point, a clashing name)."""

    kind: str
    error: str


PluginEntry = ListedPlugin | PluginProblem


def list_plugins() -> list[PluginEntry]:
    """Every plugin task, scenario and model provider, each registry's problems first."""
    from rulebench.inferential.registry import TASKS
    from rulebench.models.registry import BACKENDS
    from rulebench.scenarios.registry import REGISTRY

    found: list[PluginEntry] = []
    registries = ((TASKS, "-t"), (REGISTRY, "--scenario"), (BACKENDS, "-m"))
    for registry, option in registries:
        found += [PluginProblem(kind=registry.kind, error=line) for line in registry.problems()]
        for name, entry in registry.entries().items():
            if not entry.is_plugin:
                continue
            try:
                registry.load(name)
                error = None
            except RulebenchError as exc:
                error = str(exc)
            found.append(
                ListedPlugin(
                    kind=registry.kind,
                    name=name,
                    package=entry.package,
                    target=entry.target,
                    use=f"{option} {name}" + ("/<name>" if option == "-m" else ""),
                    error=error,
                )
            )
    return found
