"""A batch killed or stopped mid-way is finished by the same command: nothing lost or doubled."""

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from rulebench.checks.loadtest import LoadTestTask
from rulebench.engine.store.database import Store
from rulebench.testing.mock_server import MockServerConfig, serve_in_thread

from tests.command import rulebench, rulebench_command
from tests.reliability.polling import finished, tokens_requested

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`

ITEMS = 120
MODELS = ("scripted/echo", "openai-api/mock/echo", "scripted/fixed")


def batch_args(store: Path, output: Path, url: str) -> list[str]:
    """Three models; the batch is hit in the second, on a mock server (0.1 s a reply, 6 s all)."""
    models = [arg for model in MODELS for arg in ("-m", model)]
    common = ["-n", str(ITEMS), "-c", "2", "--base-url", url, "--json"]
    return ["run", "loadtest", *models, *common, "--store", str(store), "-o", str(output)]


def wait_until(
    store: Path, count: int, process: subprocess.Popen[bytes] | subprocess.Popen[str]
) -> None:
    deadline = time.monotonic() + 90
    while finished(store) < count and time.monotonic() < deadline:
        assert process.poll() is None, "the batch ended before it could be stopped"
        time.sleep(0.02)


@pytest.mark.timeout(240)
def test_a_batch_killed_mid_run_is_finished_by_the_same_command(tmp_path: Path) -> None:
    store, output, log = tmp_path / "s.sqlite", tmp_path / "out", tmp_path / "requests.jsonl"
    with serve_in_thread(MockServerConfig(latency_s=0.1, log_path=log, keep_log=False)) as server:
        args = batch_args(store, output, server.url)
        process = subprocess.Popen(
            rulebench_command(*args), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        # The first run is done and the mock model's run a third of the way: kill there.
        wait_until(store, ITEMS + ITEMS // 3, process)
        process.send_signal(signal.SIGKILL)
        process.wait()
        with Store(store) as db:
            before = {run.model: run for run in db.list_runs()}
            assert set(before) == set(MODELS[:2])
            assert db.effective_status(before[MODELS[1]]) == "killed"
            finished_before = db.finished_item_ids(before[MODELS[1]].id)
        assert ITEMS // 3 <= len(finished_before) < ITEMS
        requested_before = len(tokens_requested(log))

        again = rulebench(*args)
        assert again.returncode == 0, again.stderr

    rows = {row["model"]: row for row in json.loads(again.stdout)["runs"]}
    assert [rows[model]["how"] for model in MODELS] == ["reused", "resumed", "new"]
    assert rows[MODELS[0]]["run_id"] == before[MODELS[0]].id
    assert rows[MODELS[1]]["run_id"] == before[MODELS[1]].id
    item_ids = sorted(item.id for item in LoadTestTask(n=ITEMS).items())
    with Store(store) as db:
        runs = db.list_runs()
        assert len(runs) == 3
        for run in runs:
            assert run.status == "completed"
            assert sorted(r.item_id for r in db.iter_results(run.id)) == item_ids
        first = db.get_run(before[MODELS[0]].id)
        assert first.ended_at == before[MODELS[0]].ended_at  # not run again
    # The resumed run asked the server only for what it had not finished before the kill.
    after = tokens_requested(log)[requested_before:]
    targets = {item.id: item.target for item in LoadTestTask(n=ITEMS).items()}
    assert not {targets[i] for i in finished_before} & set(after)
    assert len(after) == ITEMS - len(finished_before)


@pytest.mark.timeout(240)
def test_ctrl_c_in_a_batch_says_the_command_that_goes_on(tmp_path: Path) -> None:
    store, output = tmp_path / "s.sqlite", tmp_path / "out"
    with serve_in_thread(MockServerConfig(latency_s=0.1)) as server:
        args = batch_args(store, output, server.url)
        process = subprocess.Popen(
            rulebench_command(*args),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        wait_until(store, ITEMS + 10, process)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 130, stderr
        assert "the same command resumes the batch" in stderr
        assert "rulebench run loadtest -m scripted/echo -m openai-api/mock/echo" in stderr
        with Store(store) as db:
            stopped = {run.model: run.status for run in db.list_runs()}
        assert stopped == {MODELS[0]: "completed", MODELS[1]: "interrupted"}

        again = rulebench(*args)
    assert again.returncode == 0, again.stderr
    rows = json.loads(again.stdout)["runs"]
    assert [row["how"] for row in rows] == ["reused", "resumed", "new"]
    assert all(row["summary"]["items"] == ITEMS for row in rows)
