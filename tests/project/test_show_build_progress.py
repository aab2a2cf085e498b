"""scripts/show-build-progress: `make install`'s view of the llama-cpp-python build.

Each test runs the script around a stand-in command that prints a build tool's lines, so the
progress, the log and the exit status are checked without building anything.
"""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "show-build-progress"


def _show(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    """Run the script around a Python stand-in printing `body`'s lines then exiting."""
    command = [sys.executable, "-c", body]
    log = tmp_path / "build.log"
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(log), "thing", "--", *command],
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_ninja_build_shows_each_tenth_and_keeps_the_whole_output(tmp_path: Path) -> None:
    body = "for i in range(1, 41): print(f'  [{i}/40] Building CXX object ggml{i}.o')"
    shown = _show(tmp_path, body)
    assert shown.returncode == 0
    tenths = [line for line in shown.stdout.splitlines() if "% built" in line]
    assert [line.split(":")[1].split("%")[0].strip() for line in tenths] == [
        str(n) for n in range(0, 101, 10)
    ]
    assert "built in" in shown.stdout.splitlines()[-1]
    assert (tmp_path / "build.log").read_text().count("Building CXX object") == 40


def test_make_percent_lines_count_too(tmp_path: Path) -> None:
    shown = _show(tmp_path, "print('[ 55%] Building C object x.o')")
    assert "thing: 50% built" in shown.stdout


def test_a_cached_wheel_says_nothing_was_built(tmp_path: Path) -> None:
    shown = _show(tmp_path, "print('Using cached llama_cpp_python-0.3.36-cp311.whl')")
    assert shown.returncode == 0
    assert "nothing to build" in shown.stdout


def test_a_failed_build_exits_with_its_status_and_shows_the_log_tail(tmp_path: Path) -> None:
    body = "import sys; print('[1/9] cc a.c'); print('error: no compiler'); sys.exit(3)"
    shown = _show(tmp_path, body)
    assert shown.returncode == 3
    assert "error: no compiler" in shown.stderr
    assert str(tmp_path / "build.log") in shown.stderr


def test_the_makefile_builds_llama_cpp_through_it() -> None:
    makefile = (SCRIPT.parents[1] / "Makefile").read_text()
    assert "scripts/show-build-progress" in makefile
    assert "pip install --verbose" in makefile
