"""Several processes on one store: openers, resumers and a lock holder never lose or repeat work."""

import multiprocessing
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import pytest

from rulebench.engine.store.database import Store
from rulebench.engine.store.migrations import MIGRATIONS
from rulebench.testing.mock_server import MockServerConfig, serve_in_thread

from tests.command import rulebench_command
from tests.reliability.polling import finished, tokens_requested

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`

OPENERS = 8


def open_store_at(path: str, start: float) -> str:
    """Open a new store at the same instant as the other processes; '' or the error."""
    time.sleep(max(0.0, start - time.time()))
    try:
        Store(path).close()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return ""


def test_processes_opening_a_new_store_at_once_all_succeed(tmp_path: Path) -> None:
    for attempt in range(3):  # three fresh stores: the race is at creation
        path = tmp_path / f"new{attempt}.sqlite"
        start = time.time() + 1.0
        with multiprocessing.get_context("spawn").Pool(OPENERS) as pool:
            errors = pool.starmap(open_store_at, [(str(path), start)] * OPENERS)
        assert errors == [""] * OPENERS
        names = [r[0] for r in sqlite3.connect(path).execute("SELECT name FROM _migrations")]
        assert names == [name for name, _ in MIGRATIONS]


@pytest.mark.timeout(180)
def test_two_resumes_started_together_one_proceeds_the_other_refuses(tmp_path: Path) -> None:
    store, log = tmp_path / "s.sqlite", tmp_path / "requests.jsonl"
    config = MockServerConfig(latency_s=0.05, log_path=log, keep_log=False)
    with serve_in_thread(config) as server:
        backend = ["-m", "openai-api/mock/echo", "--base-url", server.url, "--store", str(store)]
        first = subprocess.run(
            rulebench_command("run", "loadtest", "-n", "10", "--json", *backend),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert first.returncode == 0, first.stderr
        with Store(store) as db:
            [run] = db.list_runs()
            # Made as 10 items, resumed as the first 10 of 200 (item ids do not depend on n).
            grown = "json_set(config, '$.limit', NULL, '$.task_config.n', 200)"
            db._db.execute(f"UPDATE runs SET config = {grown}")
        resumes = [
            subprocess.Popen(
                rulebench_command("run", "--resume", run.id, "--store", str(store), "-c", "2"),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        outcomes = [(p.wait(timeout=120), p.communicate()[1]) for p in resumes]
    codes = sorted(code for code, _ in outcomes)
    assert codes == [0, 1], outcomes
    refused = next(err for code, err in outcomes if code == 1)
    assert f"run {run.id} is running in process" in refused
    with Store(store) as db:
        assert db.count_results(run.id) == {"ok": 200, "error": 0}
        assert db.get_run(run.id).status == "completed"
    requested = tokens_requested(log)
    assert len(requested) == 200 and len(set(requested)) == 200  # no item asked for twice


@pytest.mark.timeout(180)
def test_a_lock_held_by_another_process_during_a_run_loses_nothing(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    Store(store).close()
    command = rulebench_command(
        "run", "loadtest", "-n", "300", "-c", "4", "-m", "scripted/echo",
        "-M", "delay_s=0.02", "--store", str(store),
    )  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while finished(store) < 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    # Another process takes the write lock for longer than SQLite's busy timeout, mid-run.
    holder = sqlite3.connect(store, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(8.0, lambda: holder.execute("COMMIT"))
    release.start()
    _, stderr = process.communicate(timeout=150)
    release.join()
    holder.close()
    assert process.returncode == 0, stderr
    with Store(store) as db:
        [run] = db.list_runs()
        assert run.status == "completed"
        assert db.count_results(run.id) == {"ok": 300, "error": 0}
