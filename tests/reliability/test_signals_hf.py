"""SIGTERM stops an attack and a tuning run at a step boundary; the printed command resumes it.

Both need an hf model (the embedded one, converted once per session): marked slow.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rulebench.engine.store.database import Store
from rulebench.train.data import write_dataset
from rulebench.train.examples import DataConfig

from tests.attack.test_gcg_run import states_of, status_of, tiny_flags, wait_for_step
from tests.command import rulebench_command

pytestmark = [pytest.mark.slow, pytest.mark.subprocess]

ENV = {"OMP_NUM_THREADS": "1", "COLUMNS": "200"}


def resume_command(said: str) -> list[str]:
    """The arguments of the command printed after "Resume with: " (one line)."""
    line = said.split("Resume with: ", 1)[1].splitlines()[0]
    words = line.split()
    assert words[0] == "rulebench", said
    return words[1:]


def run_to_end(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        rulebench_command(*args),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env=os.environ | ENV,
    )


@pytest.mark.timeout(900)
def test_gcg_sigterm_stores_the_step_in_flight_and_resumes(
    model_cache: Path, tmp_path: Path
) -> None:
    path, log = tmp_path / "store.sqlite", tmp_path / "attack.log"
    command = [sys.executable, "-m", "rulebench", "attack", "gcg", *tiny_flags(8)]
    with log.open("wb") as output:
        process = subprocess.Popen(
            [*command, "--store", str(path)], stdout=output, stderr=output, env=os.environ | ENV
        )
        try:
            run_id = wait_for_step(path, 1, process, log)
            process.send_signal(signal.SIGTERM)
            code = process.wait(timeout=120)
        finally:
            process.kill()
            process.wait(timeout=30)
    said = log.read_text()
    assert code == 143, said
    assert "Traceback" not in said
    assert "Terminated (SIGTERM). Steps so far are stored." in said
    assert f"rulebench attack gcg --resume {run_id} --store {path}" in said
    assert status_of(path, run_id) == "interrupted"
    stopped_at = states_of(path, run_id)[-1].step
    assert 1 <= stopped_at < 8

    resumed = run_to_end(resume_command(said))
    assert resumed.returncode == 0, resumed.stderr
    assert status_of(path, run_id) == "completed"
    assert [state.step for state in states_of(path, run_id)] == list(range(9))

    with Store(path, readonly=True) as db:
        ended = db.get_run(run_id).ended_at
    folder = tmp_path / "again"
    again = run_to_end([*resume_command(said), "-o", str(folder)])
    assert again.returncode == 0, again.stderr
    assert f"attack {run_id} is finished (8 steps): nothing to resume" in again.stderr
    assert not folder.exists()
    with Store(path, readonly=True) as db:
        assert db.get_run(run_id).ended_at == ended


@pytest.mark.timeout(900)
def test_train_irft_sigterm_saves_a_checkpoint_and_resumes(
    model_cache: Path, tmp_path: Path
) -> None:
    tiny_data = tmp_path / "data"
    write_dataset(DataConfig(limit=12, per_group=4, seed=7), tiny_data)
    output, store = tmp_path / "out", tmp_path / "store.sqlite"
    args = ["train", "irft", "--data", str(tiny_data), "-o", str(output), "--store", str(store)]
    args += ["--max-steps", "6", "--save-steps", "4", "--batch-size", "2", "--eval-size", "0"]
    args += ["--max-length", "448", "--device", "cpu"]
    process = subprocess.Popen(
        rulebench_command(*args), stderr=subprocess.PIPE, text=True, env=os.environ | ENV
    )
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and not any(output.glob("checkpoints/checkpoint-*")):
        assert process.poll() is None, process.communicate()
        time.sleep(0.1)
    # The first checkpoint is step 4's; the stop asked now saves the step under way.
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 143, stderr
    assert "Traceback" not in stderr
    assert "Terminated (SIGTERM). The run is stored as interrupted" in stderr
    with Store(store, readonly=True) as db:
        [run] = db.list_runs()
        assert run.status == "interrupted"
    saved = sorted(int(path.name.split("-")[1]) for path in output.glob("checkpoints/checkpoint-*"))
    assert saved and saved[-1] >= 4

    again = resume_command(stderr)
    assert again == ["train", "irft", "--resume", run.id, "--store", str(store)]
    resumed = run_to_end(again)
    assert resumed.returncode == 0, resumed.stderr
    with Store(store, readonly=True) as db:
        finished = db.get_run(run.id)
    assert finished.status == "completed" and finished.notes["steps"] == 6
