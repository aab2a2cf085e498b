"""A run killed with SIGKILL and then resumed has exactly one result per item, nothing lost."""

import signal
import subprocess
import time
from pathlib import Path

import pytest

from rulebench.checks.loadtest import LoadTestTask
from rulebench.engine.store.database import Store
from rulebench.testing.mock_server import MockServerConfig, serve_in_thread

from tests.command import rulebench_command
from tests.reliability.polling import finished, tokens_requested

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`

ITEMS = 300


@pytest.mark.timeout(180)
def test_sigkill_midway_then_resume_loses_and_repeats_nothing(tmp_path: Path) -> None:
    store_path, log = tmp_path / "s.sqlite", tmp_path / "requests.jsonl"
    with serve_in_thread(MockServerConfig(latency_s=0.02, log_path=log, keep_log=False)) as server:
        common = [
            "-m",
            "openai-api/mock/echo",
            "--base-url",
            server.url,
            "--store",
            str(store_path),
        ]
        run = subprocess.Popen(
            rulebench_command(
                "run",
                "loadtest",
                "-n",
                str(ITEMS),
                "-c",
                "4",
                "--json",
                *common[:4],
                "--store",
                str(store_path),
            ),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 60
        while finished(store_path) < ITEMS // 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        run.send_signal(signal.SIGKILL)
        run.wait()
        assert run.returncode == -signal.SIGKILL

        with Store(store_path) as store:
            [killed] = store.list_runs()
            assert store.effective_status(killed) == "killed"
            finished_before = store.finished_item_ids(killed.id)
        assert ITEMS // 3 <= len(finished_before) < ITEMS
        requested_before = len(tokens_requested(log))

        resumed = subprocess.run(
            rulebench_command("run", "--resume", killed.id, "--store", str(store_path)),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert resumed.returncode == 0, resumed.stderr

    with Store(store_path) as store:
        assert store.get_run(killed.id).status == "completed"
        results = list(store.iter_results(killed.id))
    items = {item.id: item for item in LoadTestTask(n=ITEMS).items()}
    assert sorted(r.item_id for r in results) == sorted(items)  # exactly one result per item
    assert all(r.outcome is not None and r.outcome.score == 1.0 for r in results)
    after = tokens_requested(log)[requested_before:]
    finished_tokens = {items[i].target for i in finished_before}
    assert not finished_tokens & set(after)  # nothing that had finished was requested again
    assert len(after) == ITEMS - len(finished_before)
