"""`rulebench serve`: loopback by default, a remote bind only when asked (with a warning)."""

import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.command import assert_one_line_error, rulebench, rulebench_command
from tests.llama_server import free_port
from tests.web.explorer_store import synthetic_run

pytestmark = pytest.mark.subprocess  # spawns rulebench processes: not in `make test-fast`


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "s.sqlite"
    synthetic_run(path, 5)
    return path


def test_a_host_other_machines_reach_needs_allow_remote(store: Path) -> None:
    for host in ("0.0.0.0", "192.168.1.20", "::", "box.lan"):
        result = rulebench("serve", "--host", host, "--store", str(store))
        assert_one_line_error(
            result, f"--host {host} is reachable from other machines", "--allow-remote"
        )


def test_a_missing_web_extra_is_an_install_hint(store: Path) -> None:
    hide = "import sys; sys.modules['uvicorn'] = None"
    result = rulebench("serve", "--store", str(store), preamble=hide)
    assert_one_line_error(result, "serve needs uvicorn", "pip install 'rulebench[web]'")


def test_a_missing_store_is_one_line(tmp_path: Path) -> None:
    result = rulebench("serve", "--store", str(tmp_path / "none.sqlite"))
    assert_one_line_error(result, "no results store at")
    assert not (tmp_path / "none.sqlite").exists()


def test_help_loads_no_web_library() -> None:
    code = (
        "import sys; from rulebench.cli.app import main; sys.argv = ['rulebench', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "web = {'fastapi', 'uvicorn', 'starlette'}\n"
        "print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in web))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "LOADED []" in output and "serve" in output


def get(url: str, host: str | None = None) -> int:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


@contextmanager
def serving(*args: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`rulebench serve ARGS` on a free port until it answers; yields its loopback URL."""
    port = free_port()
    process = subprocess.Popen(
        [*rulebench_command("serve", "--port", str(port), *args)],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, process.communicate()[1]
            try:
                get(url)
                break
            except OSError:
                assert time.monotonic() < deadline, "the server never answered"
                time.sleep(0.1)
        yield url, process
    finally:
        process.terminate()
        process.wait(10)


def test_serve_answers_on_loopback_and_refuses_other_host_names(store: Path) -> None:
    with serving("--store", str(store)) as (url, process):
        assert get(url) == 200
        assert get(url, host="evil.example") == 400  # DNS rebinding
    assert process.stderr is not None
    stderr = process.stderr.read()
    assert "rulebench explorer: http://127.0.0.1:" in stderr and "warning" not in stderr


def test_allow_remote_serves_any_host_name_and_warns(store: Path) -> None:
    with serving("--store", str(store), "--host", "0.0.0.0", "--allow-remote") as (url, process):
        assert get(url, host="box.lan") == 200
    assert process.stderr is not None
    stderr = process.stderr.read()
    assert "warning: serving on 0.0.0.0, reachable from other machines" in stderr
