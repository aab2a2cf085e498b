"""The lazy registry: names without imports, plugins from entry points, named failures."""

import importlib.metadata
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.plugins.foreign_code import import_folder
from rulebench.plugins.lazy_registry import LazyRegistry, import_target

from tests.installed import install_dist

GROUP = "rulebench.test_things"


def as_int(name: str, found: object) -> int:
    if not isinstance(found, int):
        raise TypeError(f"{found!r} is not an int")
    return found


def install(site: Path, dist: str, entries: dict[str, str], modules: dict[str, str]) -> None:
    """A dist-info folder with entry points in GROUP (and modules) as pip would leave them."""
    install_dist(site, dist, GROUP, entries, modules)


@pytest.fixture
def site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, installed_plugins: None
) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("good_plugin", "bad_plugin", "exiting_plugin"):
        sys.modules.pop(name, None)


def test_builtins_load_on_first_use_and_unknown_names_list_the_known() -> None:
    registry = LazyRegistry(
        "thing", {"answer": "tests.plugins.test_lazy_registry:GROUP"}, None, as_int
    )
    assert registry.names() == ("answer",)
    with pytest.raises(TypeError, match="not an int"):
        registry.load("answer")  # a broken built-in is a bug: its traceback shows
    with pytest.raises(ConfigError, match=r"unknown thing 'answr'\. Did you mean 'answer'\?"):
        registry.load("answr")


def test_a_plugin_loads_and_a_broken_one_is_named_while_the_rest_work(site: Path) -> None:
    install(site, "good-pkg", {"seven": "good_plugin:SEVEN"}, {"good_plugin": "SEVEN = 7\n"})
    install(site, "bad-pkg", {"bad": "bad_plugin:X"}, {"bad_plugin": "import no_such_module_x\n"})
    registry = LazyRegistry("thing", {}, GROUP, as_int)
    assert set(registry.names()) == {"seven", "bad"}
    assert registry.entry("seven").package == "good-pkg" and registry.entry("seven").is_plugin
    assert registry.load("seven") == 7
    with pytest.raises(ConfigError) as caught:
        registry.load("bad")
    message = str(caught.value)
    assert "thing plugin 'bad'" in message and "bad-pkg" in message
    assert "no_such_module_x" in message
    loaded, failed = registry.load_all()
    assert loaded == {"seven": 7} and len(failed) == 1 and "bad-pkg" in failed[0]


def test_a_plugin_calling_sys_exit_is_named_and_the_others_still_load(site: Path) -> None:
    install(site, "good-pkg", {"seven": "good_plugin:SEVEN"}, {"good_plugin": "SEVEN = 7\n"})
    install(site, "bad-pkg", {"bad": "bad_plugin:X"}, {"bad_plugin": "import no_such_module_x\n"})
    install(site, "exit-pkg", {"exits": "exiting_plugin:X"},
            {"exiting_plugin": "import sys\nsys.exit(3)\n"})  # fmt: skip
    registry = LazyRegistry("thing", {}, GROUP, as_int)
    with pytest.raises(ConfigError) as caught:
        registry.load("exits")
    message = str(caught.value)
    assert "thing plugin 'exits'" in message and "exit-pkg" in message
    assert "sys.exit(3)" in message
    loaded, failed = registry.load_all()
    assert loaded == {"seven": 7}
    assert sorted(line.split("'")[1] for line in failed) == ["bad", "exits"]


@pytest.mark.parametrize("stop", ["raise KeyboardInterrupt", "raise SystemExit(143)"])
def test_a_stop_while_a_plugin_imports_still_stops(site: Path, stop: str) -> None:
    """Ctrl-C and SIGTERM arrive as these until a command handles them (rulebench.cli.entry)."""
    install(site, "exit-pkg", {"exits": "exiting_plugin:X"}, {"exiting_plugin": f"{stop}\n"})
    registry = LazyRegistry("thing", {}, GROUP, as_int)
    with pytest.raises((KeyboardInterrupt, SystemExit)):
        registry.load("exits")


def test_a_folder_module_calling_sys_exit_is_yielded_with_its_exit(tmp_path: Path) -> None:
    (tmp_path / "a_exits.py").write_text("import sys\nsys.exit(3)\n")
    (tmp_path / "b_fine.py").write_text("X = 1\n")
    try:
        found = dict(import_folder(tmp_path))
    finally:
        for name in ("rulebench_include_a_exits", "rulebench_include_b_fine"):
            sys.modules.pop(name, None)
    exited = found[tmp_path / "a_exits.py"]
    assert isinstance(exited, SystemExit) and exited.code == 3
    assert getattr(found[tmp_path / "b_fine.py"], "X", None) == 1


def test_a_plugin_cannot_take_a_builtin_name(site: Path) -> None:
    install(site, "rival-pkg", {"seven": "good_plugin:SEVEN"}, {"good_plugin": "SEVEN = 8\n"})
    registry = LazyRegistry("thing", {"seven": "math:pi"}, GROUP, lambda n, f: f)
    assert registry.entry("seven").package == "rulebench"
    assert any("rival-pkg" in line and "taken" in line for line in registry.problems())


def test_a_builtin_is_found_without_reading_installed_entry_points(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scanning every installed package's metadata is slow; a built-in name never needs it."""
    install(site, "other-pkg", {"six": "good_plugin:SEVEN"}, {"good_plugin": "SEVEN = 6\n"})
    registry = LazyRegistry("thing", {"seven": "math:pi"}, GROUP, lambda n, f: f)
    scans: list[str] = []
    real = importlib.metadata.entry_points

    def counted(group: str) -> importlib.metadata.EntryPoints:
        scans.append(group)
        return real(group=group)

    monkeypatch.setattr(importlib.metadata, "entry_points", counted)
    assert "seven" in registry and registry.entry("seven").target == "math:pi"
    assert scans == []
    assert "six" in registry and registry.entry("six").package == "other-pkg"
    assert scans == [GROUP]  # a plugin's name is still looked up, once


def test_import_target_follows_dotted_attributes() -> None:
    assert import_target("pathlib:Path.cwd") == Path.cwd
    with pytest.raises(ValueError, match="module:attr"):
        import_target("pathlib")


def test_tests_see_installed_plugins_only_when_they_ask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """A plugin in the venv (the plugins guide's example) must not change what tests count."""
    install(tmp_path, "stray-pkg", {"seven": "good_plugin:SEVEN"}, {"good_plugin": "SEVEN = 7\n"})
    monkeypatch.syspath_prepend(str(tmp_path))
    assert LazyRegistry("thing", {}, GROUP, as_int).names() == ()
    request.getfixturevalue("installed_plugins")
    assert LazyRegistry("thing", {}, GROUP, as_int).names() == ("seven",)
