"""SIGINT and SIGTERM end every long command the same way: one line, 130 or 143, no traceback.

The run-storing commands (run, experiment) are covered in test_interrupt.py and
cli/test_multi_model_resume.py; the tuning and attack commands, which need an hf model, in
test_signals_hf.py. Here: the start-up window, `train data` and `serve`.
"""

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rulebench.engine.store.database import Store
from rulebench.train.data import MANIFEST

from tests.command import ENTRY, rulebench, rulebench_command

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`

SIGNALS = [(signal.SIGINT, 130, "Interrupted"), (signal.SIGTERM, 143, "Terminated (SIGTERM)")]


def default_sigint() -> None:
    """Children inherit an ignored SIGINT; the child must see Ctrl-C as a person would send it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(command: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("signum", "code", "said"), SIGNALS)
def test_a_signal_while_modules_import_is_one_line(
    tmp_path: Path, signum: signal.Signals, code: int, said: str
) -> None:
    # -X importtime writes a line as each module finishes importing: the signal is sent
    # while typer (the first heavy import, after the entry point's) is still loading.
    args = ["run", "loadtest", "-m", "scripted/echo", "--store", str(tmp_path / "s.sqlite")]
    process = start([sys.executable, "-X", "importtime", "-c", ENTRY, *args])
    assert process.stderr is not None
    for line in process.stderr:
        if line.rsplit("|", 1)[-1].strip().startswith("typer."):
            process.send_signal(signum)
            break
    _, rest = process.communicate(timeout=60)
    said_lines = [line for line in rest.splitlines() if not line.startswith("import time:")]
    assert process.returncode == code, rest
    assert "Traceback" not in rest and "KeyboardInterrupt" not in rest
    assert said_lines == [f"{said}."]


@pytest.mark.timeout(180)
@pytest.mark.parametrize(("signum", "code", "said"), SIGNALS)
def test_train_data_stops_and_the_same_command_starts_over(
    tmp_path: Path, signum: signal.Signals, code: int, said: str
) -> None:
    folder = tmp_path / "data"
    args = ["train", "data", "-o", str(folder), "--limit", "100000", "--per-group", "16"]
    process = start(rulebench_command(*args))
    deadline = time.monotonic() + 60
    while not folder.is_dir() and time.monotonic() < deadline:  # claimed: building examples
        assert process.poll() is None
        time.sleep(0.05)
    time.sleep(0.5)
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == code, stderr
    assert "Traceback" not in stderr
    assert f"{said}. No data set was written ({folder} is empty); run the same command" in stderr
    assert list(folder.iterdir()) == []
    again = stderr.split("Resume with: ", 1)[1].split()
    assert again[:3] == ["rulebench", "train", "data"]
    smaller = [*again[1:]]
    smaller[smaller.index("--limit") + 1] = "40"  # the same command, sized to finish here
    finished = subprocess.run(
        rulebench_command(*smaller), capture_output=True, text=True, timeout=120, check=False
    )
    assert finished.returncode == 0, finished.stderr
    assert (folder / MANIFEST).is_file()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("signum", "code", "said"), SIGNALS)
def test_serve_stops_with_one_line(
    tmp_path: Path, signum: signal.Signals, code: int, said: str
) -> None:
    store = tmp_path / "s.sqlite"
    with Store(store):
        pass
    port = free_port()
    process = start(rulebench_command("serve", "--store", str(store), "--port", str(port)))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == code, stderr
    assert "Traceback" not in stderr
    assert stderr.rstrip().endswith(f"{said}. The server stopped.")


def test_a_signal_inside_a_class_being_made_is_one_line_too() -> None:
    # A pydantic model built during the imports runs __set_name__: an exit raised there
    # reaches the entry point as a RuntimeError caused by it (seen in the GCG stop soak).
    preamble = (
        "import os, signal\n"
        "import rulebench.cli.app as app\n"
        "def made_during_a_signal():\n"
        "    class Descriptor:\n"
        "        def __set_name__(self, owner, name):\n"
        "            os.kill(os.getpid(), signal.SIGTERM)\n"
        "            for _ in range(100_000): pass\n"
        "    class Model:\n"
        "        field = Descriptor()\n"
        "app.main = made_during_a_signal\n"
    )
    result = rulebench("--help", preamble=preamble)
    assert result.returncode == 143, result.stderr
    assert result.stderr == "Terminated (SIGTERM).\n"
