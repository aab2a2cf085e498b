"""Names -> "module:attr" targets, imported on first use; built-ins plus plugins from packages.

Every registry (run tasks, inferential tasks, scenarios, model backends) is one of these, so
names are known without importing anything (help texts and did-you-mean cost nothing), an
unknown name gets the same kind of message everywhere, and plugins arrive the same way: an
entry point in the registry's group whose value is a "module:attr" string, exactly like a
built-in entry. A plugin that fails to import is an error naming the plugin and its package;
the other entries still work.
"""

import importlib
import importlib.metadata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from rulebench.core.did_you_mean import did_you_mean
from rulebench.core.errors import ConfigError
from rulebench.plugins.foreign_code import describe_failure, is_stop

T = TypeVar("T")

BUILT_IN = "rulebench"
"""The `package` of entries rulebench ships."""


@dataclass(frozen=True)
class Entry:
    """One registered name: where its object lives and who provides it."""

    name: str
    target: str
    """"module:attr"; attr may be dotted (a classmethod)."""
    package: str = BUILT_IN
    """The distribution that provides it (an installed plugin), `rulebench` for built-ins, or
    the folder an `--include` read it from."""

    @property
    def is_plugin(self) -> bool:
        """Whether it comes from outside rulebench."""
        return self.package != BUILT_IN


def import_target(target: str) -> object:
    """The object a "module:attr" string names (attr may be dotted)."""
    module_name, sep, attr_path = target.partition(":")
    if not sep or not module_name or not attr_path:
        raise ValueError(f"'{target}' is not of the form module:attr")
    found: object = importlib.import_module(module_name)
    for attr in attr_path.split("."):
        found = getattr(found, attr)
    return found


class LazyRegistry(Generic[T]):
    """Name -> "module:attr" for one kind of object, built-ins first, then plugins.

    Args:
        kind: what the names are, for messages ("inferential task", "scenario").
        builtins: the entries rulebench ships, in the order lists show them.
        group: the entry-point group plugins register in; None for a registry with no plugins.
        check: turns the imported object into a `T`, raising TypeError when it is not one.
        known: how an unknown-name message lists the known names; default "Known <kind>s:
            a, b, ...".
    """

    def __init__(
        self,
        kind: str,
        builtins: dict[str, str],
        group: str | None,
        check: Callable[[str, object], T],
        known: Callable[[tuple[str, ...]], str] | None = None,
    ) -> None:
        self.kind = kind
        self._known = known or (lambda names: f"Known {kind}s: {', '.join(names)}")
        self.group = group
        self._check = check
        self._builtins = {name: Entry(name, target) for name, target in builtins.items()}
        self._added: dict[str, Entry] = {}
        self._plugins: dict[str, Entry] | None = None
        self._loaded: dict[str, T] = {}
        self._problems: list[str] = []

    def entries(self) -> dict[str, Entry]:
        """Every entry by name: built-ins, then installed plugins, then included ones."""
        return self._builtins | self._plugin_entries() | self._added

    def names(self) -> tuple[str, ...]:
        """Every registered name, in `entries` order."""
        return tuple(self.entries())

    def __contains__(self, name: object) -> bool:
        # A built-in name needs no scan of the installed packages' entry points (start-up).
        return name in self._builtins or name in self.entries()

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries())

    def problems(self) -> list[str]:
        """Plugin entries that were skipped (a name taken twice, a malformed value)."""
        self._plugin_entries()
        return list(self._problems)

    def rescan(self) -> None:
        """Read the installed packages' entry points again on next use, forgetting the plugins.

        The scan is kept for the life of the process; a test that installs a plugin, or
        hides the installed ones, starts from a fresh one.
        """
        for name in self._plugins or {}:
            self._loaded.pop(name, None)
        self._plugins = None
        self._problems = []

    def add(self, name: str, target: str, package: str) -> None:
        """Register `name` at run time (a task module from an `--include` folder)."""
        if name in self._builtins:
            raise ConfigError(
                f"{package}: {self.kind} '{name}' is already a built-in {self.kind}; rename it"
            )
        self._added[name] = Entry(name, target, package)
        self._loaded.pop(name, None)

    def discard(self, name: str) -> None:
        """Forget a run-time addition and what was loaded for `name` (imported again if asked)."""
        self._added.pop(name, None)
        self._loaded.pop(name, None)

    def entry(self, name: str) -> Entry:
        """The entry of `name`, or a ConfigError with the closest name and all known ones."""
        # Built-ins come first and no plugin or addition can take their names, so a built-in
        # is found without scanning the installed packages' entry points (start-up time).
        found = self._builtins.get(name) or self.entries().get(name)
        if found is None:
            raise ConfigError(self.unknown_message(name))
        return found

    def load(self, name: str) -> T:
        """The object registered as `name`, imported on first use.

        Raises:
            ConfigError: an unknown name, or a plugin that fails to import or is not a
                `T` (named with its package, so the user knows what to fix or uninstall).
        """
        if name in self._loaded:
            return self._loaded[name]
        entry = self.entry(name)
        if not entry.is_plugin:
            # A broken built-in is a bug in rulebench: let its traceback show.
            loaded = self._check(name, import_target(entry.target))
        else:
            loaded = self._load_plugin(entry)
        self._loaded[name] = loaded
        return loaded

    def load_all(self) -> tuple[dict[str, T], list[str]]:
        """Every entry loaded, and one line per plugin that failed (left out of the dict)."""
        loaded: dict[str, T] = {}
        failed = []
        for name in self.names():
            try:
                loaded[name] = self.load(name)
            except ConfigError as exc:
                if not self.entry(name).is_plugin:
                    raise
                failed.append(str(exc))
        return loaded, failed

    def describe(self, entry: Entry) -> str:
        """The entry as messages name it: "scenario plugin 'X' (mod:X) from some-package"."""
        return f"{self.kind} plugin '{entry.name}' ({entry.target}) from {entry.package}"

    def _load_plugin(self, entry: Entry) -> T:
        where = self.describe(entry)
        try:
            return self._check(entry.name, import_target(entry.target))
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from exc
        # Any failure of foreign code is reported, not a crash: sys.exit() in it included.
        except BaseException as exc:
            if is_stop(exc):
                raise
            raise ConfigError(
                f"{where} failed to load: {describe_failure(exc)}; fix or uninstall {entry.package}"
            ) from exc

    def unknown_message(self, name: str) -> str:
        """Name the unknown entry, the closest known one (case-insensitively) and all."""
        known = self.names()
        return f"unknown {self.kind} '{name}'.{did_you_mean(name, known)} {self._known(known)}"

    def _plugin_entries(self) -> dict[str, Entry]:
        # Reading entry points opens only metadata files, never the plugins' modules.
        if self._plugins is None:
            self._plugins = {}
            if self.group is not None:
                for point in importlib.metadata.entry_points(group=self.group):
                    self._take(point)
        return self._plugins

    def _take(self, point: importlib.metadata.EntryPoint) -> None:
        assert self._plugins is not None
        package = point.dist.name if point.dist is not None else "an unknown package"
        if point.name in self._builtins or point.name in self._plugins:
            self._problems.append(
                f"{self.kind} plugin '{point.name}' from {package} skipped: the name is taken"
            )
        elif ":" not in point.value:
            self._problems.append(
                f"{self.kind} plugin '{point.name}' from {package} skipped: its entry point "
                f"'{point.value}' is not module:attr"
            )
        else:
            self._plugins[point.name] = Entry(point.name, point.value, package)
