"""Shared fixtures: a real SQLite store in tmp_path and a scripted stand-in model."""

import importlib.metadata
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import JsonValue

from rulebench.core.items import Item, ItemIds, Outcome
from rulebench.core.messages import Message
from rulebench.engine.store.database import Store
from rulebench.engine.task import Session
from rulebench.inferential.registry import TASKS
from rulebench.models.hf.cache import CACHE_ENV_VAR
from rulebench.models.registry import BACKENDS
from rulebench.scenarios.registry import REGISTRY

_ENTRY_POINTS = importlib.metadata.entry_points
"""The real reader, for the tests that request `installed_plugins`."""


def _without_rulebench_groups(**params: str) -> object:
    # object: without a group, Python 3.11 returns its SelectableGroups (datasets asks so).
    if params.get("group", "").startswith("rulebench."):
        return importlib.metadata.EntryPoints(())
    return _ENTRY_POINTS(**params)


def pytest_configure(config: pytest.Config) -> None:
    """Set up the environment every test, and every test's collection, sees.

    Consoles read COLUMNS at print time, and tests set it where they need a width. A width in
    the environment when the CLI's consoles are made would fix them at it: GNU readline
    (imported by pdb) exports COLUMNS and LINES in pytest-xdist's workers.

    Registries hold only rulebench's own entries, whatever plugins the venv has installed: a
    plugin installed as the plugins guide says (`pip install ./examples/plugin`) would add
    its names to the counts and lists tests check, and to the names parametrized tests are
    collected for. The entry-point groups named `rulebench.*` are hidden from collection on;
    a test of plugin loading requests `installed_plugins` to see them.
    """
    os.environ.pop("COLUMNS", None)
    os.environ.pop("LINES", None)
    importlib.metadata.entry_points = _without_rulebench_groups  # type: ignore[assignment]  # an overloaded stdlib function, replaced for the session


@pytest.fixture(scope="session", autouse=True)
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Converted models go to one folder per test session, never into the user's cache.

    The hf backend and training read the embedded GGUF through its transformers conversion
    (~20 s), which so happens once per session.
    """
    folder = tmp_path_factory.mktemp("rulebench-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV_VAR, str(folder))
        yield folder


@pytest.fixture(autouse=True)
def isolated_store_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Nothing a test runs may write results into the checkout: point the default store to tmp."""
    path = tmp_path / "default-store" / "rulebench.sqlite"
    monkeypatch.setenv("RULEBENCH_STORE", str(path))
    return path


@pytest.fixture(autouse=True)
def fresh_registries() -> Iterator[None]:
    """Each test reads entry points afresh, so one that installs a plugin leaks it to none."""
    registries = (TASKS, REGISTRY, BACKENDS)
    for registry in registries:
        registry.rescan()
    yield
    for registry in registries:
        registry.rescan()


@pytest.fixture
def installed_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Request it to see the `rulebench.*` entry points of installed packages (plugin tests)."""
    monkeypatch.setattr(importlib.metadata, "entry_points", _ENTRY_POINTS)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    db = Store(tmp_path / "store.sqlite")
    yield db
    db.close()


class EchoTask:
    """N single-turn items "question i"; the answer is right when the reply contains "i"."""

    name = "echo-test"

    def __init__(self, n: int = 10, prefix: str = "question") -> None:
        self.n = n
        self.prefix = prefix

    def config(self) -> dict[str, JsonValue]:
        return {"n": self.n, "prefix": self.prefix}

    def items(self) -> list[Item]:
        ids = ItemIds()
        return [
            Item(
                id=ids([self.prefix, i]),
                messages=(Message(role="user", content=f"{self.prefix} {i}"),),
                target=str(i),
                metadata={"index": i, "parity": "even" if i % 2 == 0 else "odd"},
            )
            for i in range(self.n)
        ]

    async def solve(self, item: Item, session: Session) -> Outcome:
        completion = await session.generate(item.messages)
        answer = completion.text.split()[-1] if completion.text.split() else None
        return Outcome(answer=answer, score=float(answer == item.target))


@pytest.fixture
def echo_task() -> EchoTask:
    return EchoTask()
