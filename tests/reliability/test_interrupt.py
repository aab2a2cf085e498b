"""Ctrl-C stops a run cleanly: finished items stay stored, the run is resumable."""

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rulebench.engine.store import Store

from tests.reliability.polling import finished

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
        "--items",
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
