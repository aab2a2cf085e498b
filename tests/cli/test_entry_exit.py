"""The console script's exit: teardown skipped, but output, exit status and handlers kept."""

import json
from pathlib import Path

import pytest

from rulebench.engine.store.database import Store

from tests.command import assert_one_line_error, rulebench

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`


def test_a_run_ends_with_all_its_output_its_status_and_its_results(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    args = ["run", "loadtest", "-n", "40", "-m", "scripted/echo", "--store", str(store)]
    result = rulebench(*args, "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)  # the whole document reached the pipe
    assert json.dumps(summary)
    with Store(store, readonly=True) as reopened:
        [run] = reopened.list_runs()
        assert run.status == "completed"
        assert reopened.count_results(run.id)["ok"] == 40


def test_a_failed_command_keeps_its_status_and_message(tmp_path: Path) -> None:
    result = rulebench("run", "loadtest", "-m", "no-such-backend/x", "--store", str(tmp_path / "s"))
    assert_one_line_error(result, "no-such-backend")


def test_exit_handlers_still_run(tmp_path: Path) -> None:
    marker = tmp_path / "handler-ran"
    preamble = f"import atexit, pathlib\natexit.register(pathlib.Path({str(marker)!r}).touch)"
    result = rulebench("--version", preamble=preamble)
    assert result.returncode == 0, result.stderr
    assert marker.exists()


def test_a_thread_still_running_at_the_end_is_waited_for(tmp_path: Path) -> None:
    """The thread works only once the main thread is done, so a skipped wait would lose it."""
    marker = tmp_path / "thread-finished"
    preamble = (
        "import pathlib, threading\n"
        "def after_main():\n"
        "    threading.main_thread().join()\n"
        f"    pathlib.Path({str(marker)!r}).touch()\n"
        "threading.Thread(target=after_main).start()"
    )
    result = rulebench("--version", preamble=preamble)
    assert result.returncode == 0, result.stderr
    assert marker.exists()
