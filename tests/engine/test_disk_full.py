"""A disk that fills during a run ends it "failed" with reason "disk full", or says why not.

Such runs were once left "running" (shown as "killed") with no reason, whether the disk
filled mid-run or at the start: the run's end was written the same way as everything else,
and failed the same way.
"""

import json
import shutil
import sqlite3
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.core.errors import StoreError
from rulebench.engine.runner import Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.engine.store.run_liveness import why_killed
from rulebench.models.scripted import ScriptedModel

from tests.command import assert_one_line_error, rulebench
from tests.conftest import EchoTask
from tests.engine.full_disk import Disk, install

SPEC = RunSpec(task="echo-test", model="scripted/echo", concurrency=1)


async def run_until_full(path: Path) -> str:
    """Run 30 items (about 10 ms each: several writer batches) until the store fills."""
    with Store(path) as store, pytest.raises(StoreError) as failed:
        await Runner(store).run(EchoTask(n=30), ScriptedModel("echo", delay_s=0.01), SPEC)
    return str(failed.value)


def stored_run(path: Path) -> tuple[str, str, str]:
    """(id, status, reason) of the store's only run, read past the fake disk."""
    connection = sqlite3.connect(path)
    [(run_id, status, notes)] = connection.execute("SELECT id, status, notes FROM runs")
    connection.close()
    return run_id, status, str(json.loads(notes).get("reason", ""))


@pytest.mark.parametrize("fill_after_batches", [0, 1], ids=["at start", "mid-run"])
async def test_a_full_disk_ends_the_run_failed_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fill_after_batches: int
) -> None:
    disk = Disk(fill_after_batches=fill_after_batches, frees_on_checkpoint=True)
    install(monkeypatch, disk)
    message = await run_until_full(tmp_path / "s.sqlite")
    assert message.startswith("disk full: ") and "free space" in message
    _, status, reason = stored_run(tmp_path / "s.sqlite")
    assert status == "failed"
    assert reason.startswith("disk full: ")
    assert disk.batches == fill_after_batches  # nothing was written after the disk filled


def dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


async def test_when_not_even_the_end_fits_runs_show_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.sqlite"
    install(monkeypatch, Disk(fill_after_batches=1))
    message = await run_until_full(path)
    assert message.startswith("disk full: ") and "could not record how run" in message
    run_id, status, reason = stored_run(path)
    assert (status, reason) == ("running", "")
    connection = sqlite3.connect(path)  # as after the process is gone
    with connection:
        connection.execute("UPDATE runs SET pid = ?", (dead_pid(),))
    connection.close()
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage(10**9, 10**9 - 4096, 4096))
    monkeypatch.setenv("COLUMNS", "400")  # the consoles read it on every write
    shown = CliRunner().invoke(app, ["runs", "show", run_id, "--store", str(path)])
    assert shown.exit_code == 0, shown.output
    assert "status: killed" in shown.stdout
    assert "the store could not record its end, as its file system is full" in shown.stderr
    assert "4,096 bytes free" in shown.stderr and "free disk space" in shown.stderr


def test_a_killed_run_on_a_roomy_disk_still_names_the_possibilities(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        assert "check the store's disk space and permissions" in why_killed(store.path)


def test_the_command_exits_1_with_one_line_and_records_the_reason(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    preamble = (
        "import pytest\n"
        "from tests.engine.full_disk import Disk, install\n"
        "install(pytest.MonkeyPatch(), Disk(fill_after_batches=0, frees_on_checkpoint=True))"
    )
    result = rulebench(
        "run", "smoke", "-m", "scripted/echo", "--store", str(store), preamble=preamble
    )
    assert_one_line_error(result, "disk full: cannot write to the store", "free space")
    _, status, reason = stored_run(store)
    assert status == "failed" and reason.startswith("disk full: ")
