"""A damaged store never lets a run end "completed"; one refused at its start leaves no run."""

import sqlite3
from pathlib import Path

import pytest

from rulebench.core.errors import StoreError
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.connection import check_intact
from rulebench.engine.store.database import Store
from rulebench.models.scripted import ScriptedModel

from tests.engine import damaged_store
from tests.engine.damaged_store import DamagingLoadTest, damage_page, root_page

SPEC = RunSpec(task="loadtest", model="scripted/echo", concurrency=2)


async def test_a_page_damaged_while_the_run_goes_on_fails_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()  # made and closed: its pages are in the file, not the write-ahead log
    monkeypatch.setattr(damaged_store, "TARGET", [path])
    with Store(path) as store:
        with pytest.raises(StoreError) as raised:
            await Runner(store).run(DamagingLoadTest(n=40), ScriptedModel(mode="echo"), SPEC)
        [run] = store.list_runs()
    message = str(raised.value)
    assert message.startswith(f"the results store {path} is damaged")
    assert "\n" not in message
    assert run.status == "failed" and run.notes["reason"] == message


async def test_a_run_over_an_intact_store_is_checked_and_completes(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        report = await Runner(store).run(DamagingLoadTest(n=3), ScriptedModel(mode="echo"), SPEC)
        assert report.run.status == "completed"  # item 5, which would damage it, never comes


async def first_run_then_damaged_cache(path: Path) -> str:
    """A store holding one finished run whose cache table's page is then damaged."""
    with Store(path) as store:
        report = await Runner(store).run(DamagingLoadTest(n=3), ScriptedModel(mode="echo"), SPEC)
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page into the file
    damage_page(path, root_page(path, "cache"))
    return report.run.id


async def test_a_store_refused_at_the_start_of_a_run_leaves_no_run(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    first = await first_run_then_damaged_cache(path)
    with Store(path) as store:
        with pytest.raises(StoreError, match=r"cannot read the results store .*malformed"):
            await Runner(store).run(DamagingLoadTest(n=3), ScriptedModel(mode="echo"), SPEC)
        assert [run.id for run in store.list_runs()] == [first]  # no run left "killed"


async def test_a_resume_refused_at_its_start_leaves_the_run_failed_with_the_reason(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.sqlite"
    first = await first_run_then_damaged_cache(path)
    with Store(path) as store:
        with pytest.raises(StoreError, match="malformed"):
            await Runner(store).run(DamagingLoadTest(n=3), ScriptedModel(mode="echo"), SPEC, first)
        [run] = store.list_runs()
    assert run.status == "failed"  # not "running", which reads "killed" once this process ends
    assert "cannot read the results store" in str(run.notes["reason"])


def test_the_check_names_the_file_and_what_it_found(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    damage_page(path, root_page(path, "runs"))
    connection = sqlite3.connect(path)
    try:
        with pytest.raises(StoreError, match=r"is damaged \(SQLite's integrity check: .+\)"):
            check_intact(connection, path)
    finally:
        connection.close()
