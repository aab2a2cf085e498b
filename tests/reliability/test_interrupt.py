"""Ctrl-C stops a run cleanly: finished items stay stored, the run is resumable."""

import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rulebench.engine.store.database import Store

from tests.reliability.polling import finished

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`

ITEMS = 400


def default_sigint() -> None:
    """Children inherit an ignored SIGINT; the child must see Ctrl-C as a person would send it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.timeout(180)
def test_ctrl_c_leaves_a_resumable_run(tmp_path: Path) -> None:
    store_path = tmp_path / "s.sqlite"
    # 400 items x 0.1 s at concurrency 2 is 20 s: far longer than noticing the first 20.
    command = [
        sys.executable,
        "-m",
        "rulebench",
        "run",
        "loadtest",
        "-n",
        str(ITEMS),
        "-c",
        "2",
    ]
    slow_model = ["-m", "scripted/echo", "-M", "delay_s=0.1", "--store", str(store_path)]
    started = time.monotonic()
    process = subprocess.Popen(
        [*command, *slow_model], stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint
    )
    while finished(store_path) < 20 and time.monotonic() - started < 90 and process.poll() is None:
        time.sleep(0.05)
    seen, waited = finished(store_path), time.monotonic() - started
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, f"saw {seen} results after {waited:.1f}s\n{stderr}"
    with Store(store_path) as store:
        [run] = store.list_runs()
        assert run.status == "interrupted"
        done = store.count_results(run.id)["ok"]
    assert 20 <= done < ITEMS
    assert f"rulebench run --resume {run.id}" in stderr

    resume = [sys.executable, "-m", "rulebench", "run", "--resume", run.id, "-c", "64"]
    resumed = subprocess.run(
        [*resume, "--store", str(store_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert f"{done} finished earlier" in resumed.stderr
    with Store(store_path) as store:
        assert store.count_results(run.id) == {"ok": ITEMS, "error": 0}


def start_loadtest(store_path: Path) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "rulebench", "run", "loadtest", "-n", str(ITEMS)]
    slow_model = ["-c", "2", "-m", "scripted/echo", "-M", "delay_s=0.1"]
    return subprocess.Popen(
        [*command, *slow_model, "--store", str(store_path)],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )


def wait_for_results(store_path: Path, process: subprocess.Popen[str], count: int) -> None:
    started = time.monotonic()
    while finished(store_path) < count and time.monotonic() - started < 90:
        assert process.poll() is None, "the run ended before it could be interrupted"
        time.sleep(0.05)


@pytest.mark.timeout(180)
def test_sigterm_stops_like_ctrl_c(tmp_path: Path) -> None:
    store_path = tmp_path / "s.sqlite"
    process = start_loadtest(store_path)
    wait_for_results(store_path, process, 20)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 143, stderr
    with Store(store_path, readonly=True) as store:
        [run] = store.list_runs()
        assert run.status == "interrupted"
        assert store.count_results(run.id)["ok"] >= 20
    assert "Terminated (SIGTERM). Finished items are stored" in stderr
    assert f"rulebench run --resume {run.id} --store {store_path}" in stderr


@pytest.mark.timeout(180)
def test_a_second_ctrl_c_stops_at_once_with_exit_130_and_the_run_resumes(tmp_path: Path) -> None:
    store_path = tmp_path / "s.sqlite"
    process = start_loadtest(store_path)
    wait_for_results(store_path, process, 20)
    # Another process holds the write lock, so the clean stop waits for the store...
    holder = sqlite3.connect(store_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    process.send_signal(signal.SIGINT)
    time.sleep(1.0)
    assert process.poll() is None  # ...until a second Ctrl-C says not to wait.
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    holder.execute("ROLLBACK")
    holder.close()
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert "Interrupted twice" in stderr
    with Store(store_path) as store:
        [run] = store.list_runs()
        assert store.effective_status(run) in ("killed", "interrupted")
    resume = ["run", "--resume", run.id, "-c", "64", "--store", str(store_path)]
    resumed = subprocess.run(
        [sys.executable, "-m", "rulebench", *resume],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    with Store(store_path) as store:
        assert store.count_results(run.id) == {"ok": ITEMS, "error": 0}


@pytest.mark.timeout(120)
def test_ctrl_c_before_the_run_starts_says_nothing_was_stored(tmp_path: Path) -> None:
    store_path = tmp_path / "s.sqlite"
    with socket.socket() as silent:  # accepts connections, never answers: the check waits
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        silent.settimeout(60)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/v1"
        command = ["run", "smoke", "-m", "openai-api/x/y", "--base-url", url]
        process = subprocess.Popen(
            [sys.executable, "-m", "rulebench", *command, "--store", str(store_path)],
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=default_sigint,
        )
        connection, _ = silent.accept()  # the reachability check is under way
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
        connection.close()
    assert process.returncode == 130, stderr
    assert "before the run started: nothing was stored" in stderr
    assert "--resume" not in stderr and "Traceback" not in stderr
