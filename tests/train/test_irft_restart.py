"""A tuning run stopped before its first checkpoint resumes from step 0, in its own folder.

Such a run leaves a run file and a store row but nothing to go on from; `--resume` used to
refuse it ("no checkpoint yet") while starting it again refused the folder ("pass --resume").
"""

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from rulebench.engine.store.database import Store
from rulebench.train.irft import RUN_FILE, read_run_file, run_irft
from rulebench.train.irft_record import invocations

from tests.command import rulebench_command
from tests.train.tiny_runs import Killed, Recorder, tiny_config

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("stop_with", "ended_as"),
    [(KeyboardInterrupt, "interrupted"), (Killed, "killed")],
    ids=["interrupted", "killed-while-saving"],
)
def test_a_run_stopped_before_its_first_checkpoint_resumes_from_step_0(
    tiny_data: Path,
    tiny_model: Path,
    tmp_path: Path,
    stop_with: type[BaseException],
    ended_as: str,
) -> None:
    config = tiny_config(tiny_data, tmp_path / "out", tiny_model)  # first checkpoint: step 2
    store = tmp_path / "store.sqlite"
    with pytest.raises(stop_with):
        run_irft(config, store=store, progress=Recorder(stop_at=1, stop_with=stop_with))
    checkpoints = config.output / "checkpoints"
    assert not any(checkpoints.glob("checkpoint-*"))
    if stop_with is Killed:  # killed as its first checkpoint was written: no trainer state yet
        (checkpoints / "checkpoint-2").mkdir(parents=True)
        (checkpoints / "checkpoint-2" / "adapter_model.safetensors").write_bytes(b"cut")
    run_id = str(read_run_file(config.output)["run_id"])
    with Store(store) as db:
        assert db.get_run(run_id).status == ("running" if stop_with is Killed else "interrupted")

    recorder = Recorder()
    result = run_irft(config, resume=True, progress=recorder)
    assert recorder.restarted == [run_id] and recorder.begun == [(3, 0)]
    assert result.run_id == run_id and result.steps == 3
    assert [step for step, _ in result.loss_curve] == [1, 2, 3]
    how = [(i.ended_as, i.from_step, i.to_step, i.train_tokens) for i in result.invocations]
    assert how == [(ended_as, 0, 0, 0), ("completed", 0, 3, result.train_tokens)]
    assert result.train_tokens > 0 and result.eval_loss_before is not None
    assert (checkpoints / "checkpoint-2" / "trainer_state.json").is_file()
    assert invocations(read_run_file(config.output)) == result.invocations
    with Store(store) as db:
        row = db.get_run(run_id)
    assert row.status == "completed" and row.notes["steps"] == 3
    assert row.notes["train_tokens"] == result.train_tokens
    assert run_irft(config, resume=True).finished_earlier


@pytest.mark.subprocess
def test_the_command_stopped_before_its_first_checkpoint_says_how_to_go_on(
    tiny_data: Path, tiny_model: Path, tmp_path: Path
) -> None:
    output, store = tmp_path / "out", tmp_path / "store.sqlite"
    args = ["train", "irft", "--data", str(tiny_data), "-o", str(output), "--store", str(store)]
    args += ["-m", f"hf/{tiny_model}", "--max-steps", "3", "--save-steps", "3"]
    args += ["--batch-size", "2", "--eval-size", "0", "--max-length", "448", "--device", "cpu"]
    env = os.environ | {"COLUMNS": "200", "OMP_NUM_THREADS": "1"}
    process = subprocess.Popen(rulebench_command(*args), stderr=subprocess.PIPE, text=True, env=env)
    # The run file lists this invocation just before the trainer is built: stop it there.
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and "invocations" not in _run_file_text(output):
        assert process.poll() is None, process.communicate()
        time.sleep(0.02)
    process.send_signal(signal.SIGTERM)
    _, stopped = process.communicate(timeout=300)
    assert process.returncode == 143, stopped
    assert not any(output.glob("checkpoints/checkpoint-*")), stopped
    assert "No checkpoint was saved yet: a resume trains the run again from step 0." in stopped
    run_id = str(read_run_file(output)["run_id"])
    again = stopped.split("Resume with: ", 1)[1].split()
    assert again == ["rulebench", "train", "irft", "--resume", run_id, "--store", str(store)]

    resumed = subprocess.run(
        rulebench_command(*again[1:]), capture_output=True, text=True, timeout=300, env=env
    )
    assert resumed.returncode == 0, resumed.stderr
    assert f"run {run_id} has no checkpoint yet: training it again from step 0" in resumed.stderr
    with Store(store, readonly=True) as db:
        row = db.get_run(run_id)
    assert row.status == "completed" and row.notes["steps"] == 3


def _run_file_text(output: Path) -> str:
    try:
        return (output / RUN_FILE).read_text()
    except OSError:
        return ""
