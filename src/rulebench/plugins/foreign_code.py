"""Running code rulebench does not ship (a user's file, a plugin) so its failures are reported.

A plugin or an included module may raise anything, SystemExit included; the caller turns that
into one line naming the file or package, while Ctrl-C still stops rulebench.
"""

import importlib.util
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from rulebench.core.errors import ConfigError

_STOP_CODES = frozenset(128 + signum for signum in (signal.SIGINT, signal.SIGTERM))
"""The exit codes the console script's signal handler raises SystemExit with (130, 143)."""


def is_stop(exc: BaseException) -> bool:
    """Whether `exc`, raised while foreign code ran, is the user stopping rulebench.

    Until a command installs its own handler, Ctrl-C and SIGTERM arrive as SystemExit(130) or
    SystemExit(143) (`rulebench.cli.entry`), so those pass on; any other SystemExit (a plugin
    calling `sys.exit(3)`) is the plugin's failure, reported like an exception.
    """
    if isinstance(exc, KeyboardInterrupt):
        return True
    return isinstance(exc, SystemExit) and exc.code in _STOP_CODES


def describe_failure(exc: BaseException) -> str:
    """What foreign code did wrong, in a few words: "NameError: x", "it called sys.exit(3)"."""
    if isinstance(exc, SystemExit):
        return f"it called sys.exit({exc.code!r})"
    return f"{type(exc).__name__}: {exc}"


def missing_modules(names: tuple[str, ...]) -> list[str]:
    """The top-level modules in `names` that cannot be imported, found without importing them.

    find_spec only locates a module, so checking torch costs microseconds, not seconds.
    """
    missing = []
    for name in names:
        try:
            found = importlib.util.find_spec(name) is not None
        except ValueError:  # imported already, without a __spec__: present
            found = True
        if not found:
            missing.append(name)
    return missing


def import_folder(folder: Path) -> Iterator[tuple[Path, ModuleType | BaseException]]:
    """Import each `*.py` file of `folder` as a module (no packaging needed), in name order.

    Yields each file with its module, or with the exception importing it raised (SystemExit
    included), so one broken file does not hide the others. Modules are named
    `rulebench_include_<stem>` and kept in `sys.modules`, so "module:attr" targets can name
    them.
    """
    if not folder.is_dir():
        raise ConfigError(f"--include {folder}: not a folder")
    for path in sorted(folder.glob("*.py")):
        if not path.name.startswith("_"):
            yield path, _import_or_failure(f"rulebench_include_{path.stem}", path)


def _import_or_failure(name: str, path: Path) -> ModuleType | BaseException:
    try:
        return sys.modules.get(name) or _import_file(name, path)
    except BaseException as exc:  # a user's module, even one calling sys.exit(): reported
        if is_stop(exc):
            raise
        return exc


def _import_file(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
