"""Ctrl-C stops a run cleanly: finished items stay stored, the run is resumable."""

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rulebench.engine.store import Store

from tests.reliability.test_kill_resume import stored_count


@pytest.mark.timeout(120)
def test_ctrl_c_leaves_a_resumable_run(tmp_path: Path) -> None:
    store_path = tmp_path / "s.sqlite"
    command = [sys.executable, "-m", "rulebench", "run", "loadtest", "--items", "400", "-c", "2"]
    slow_model = ["-m", "scripted/echo", "-M", "delay_s=0.05", "--store", str(store_path)]
    process = subprocess.Popen([*command, *slow_model], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while stored_count(store_path) < 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    with Store(store_path) as store:
        [run] = store.list_runs()
        assert run.status == "interrupted"
        done = store.count_results(run.id)["ok"]
    assert 20 <= done < 400
    assert f"rulebench run --resume {run.id}" in stderr

    resumed = subprocess.run(
        [sys.executable, "-m", "rulebench", "run", "--resume", run.id, "--store", str(store_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert f"{done} finished earlier" in resumed.stderr
    with Store(store_path) as store:
        assert store.count_results(run.id) == {"ok": 400, "error": 0}
