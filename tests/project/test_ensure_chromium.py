"""scripts/ensure-chromium: `make test`'s set-up of the browser tests' Chromium.

Each test runs the script with a PATH of stand-ins for `id`, `sudo` and `apt-get` that record
their calls (and a stand-in apt-get that "installs" Chromium by creating the file), so nothing is
installed and the real machine's rights do not matter.
"""

import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ensure-chromium"
INSTALL = "apt-get install -y --no-install-recommends chromium fonts-liberation"


def _stub(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/bash\n{body}\n")
    path.chmod(0o755)


def _machine(
    tmp_path: Path, *, uid: int, sudo_ok: bool | None, apt: bool = True, creates: bool = True
) -> tuple[Path, Path]:
    """Stand-in commands in tmp_path/bin; returns (chromium path, call log)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    log.touch()
    chromium = tmp_path / "chromium"
    _stub(bin_dir, "id", f"echo {uid}")
    _stub(bin_dir, "env", 'while [[ "$1" == *=* ]]; do export "$1"; shift; done; exec "$@"')
    if sudo_ok is not None:
        # sudo -n fails when it would have to ask for a password.
        runs = '[[ "$2" == true ]] && exit 0\necho "sudo $*" >> "$LOG"; shift; exec "$@"'
        _stub(bin_dir, "sudo", f'[[ "$1" == -n ]] || exit 2\n{runs if sudo_ok else "exit 1"}')
    if apt:
        make = f": > {chromium}; {shutil.which('chmod')} +x {chromium}" if creates else ":"
        body = (
            'echo "apt-get $* (frontend=${DEBIAN_FRONTEND:-})" >> "$LOG"\n'
            f'[[ "$1" == install ]] && {{ {make}; }}\nexit 0'
        )
        _stub(bin_dir, "apt-get", body)
    return chromium, log


def _run(tmp_path: Path, chromium: Path, log: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": str(tmp_path / "bin"), "RULEBENCH_CHROMIUM": str(chromium), "LOG": str(log)}
    return subprocess.run(
        ["/bin/bash", str(SCRIPT)], env=env, capture_output=True, text=True, check=False
    )


def test_present_chromium_installs_nothing(tmp_path: Path) -> None:
    chromium, log = _machine(tmp_path, uid=0, sudo_ok=None)
    chromium.touch()
    chromium.chmod(0o755)
    result = _run(tmp_path, chromium, log)
    assert result.returncode == 0, result.stderr
    assert log.read_text() == ""


def test_root_installs_chromium_and_fonts_through_apt(tmp_path: Path) -> None:
    chromium, log = _machine(tmp_path, uid=0, sudo_ok=None)
    result = _run(tmp_path, chromium, log)
    assert result.returncode == 0, result.stderr
    calls = log.read_text().splitlines()
    assert calls[0].startswith("apt-get update")
    assert calls[1] == f"{INSTALL} (frontend=noninteractive)"
    assert len(calls) == 2


def test_passwordless_sudo_installs_through_sudo(tmp_path: Path) -> None:
    chromium, log = _machine(tmp_path, uid=1000, sudo_ok=True)
    result = _run(tmp_path, chromium, log)
    assert result.returncode == 0, result.stderr
    calls = log.read_text().splitlines()
    assert calls[0] == "sudo -n apt-get update -qq"
    assert calls[2].startswith("sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install")
    assert calls[3] == f"{INSTALL} (frontend=noninteractive)"
    assert chromium.exists()


@pytest.mark.parametrize("sudo_ok", [False, None], ids=["sudo-asks-password", "no-sudo"])
def test_user_who_cannot_install_gets_one_line_with_the_command(
    tmp_path: Path, sudo_ok: bool | None
) -> None:
    chromium, log = _machine(tmp_path, uid=1000, sudo_ok=sudo_ok)
    result = _run(tmp_path, chromium, log)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"sudo apt-get update && sudo {INSTALL}" in lines[0]
    assert str(chromium) in lines[0]
    assert log.read_text() == ""


def test_no_apt_get_says_what_to_install(tmp_path: Path) -> None:
    chromium, log = _machine(tmp_path, uid=0, sudo_ok=None, apt=False)
    result = _run(tmp_path, chromium, log)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "no apt-get" in lines[0]
    assert "RULEBENCH_CHROMIUM" in lines[0]


def test_install_that_leaves_the_path_missing_is_an_error(tmp_path: Path) -> None:
    chromium, log = _machine(tmp_path, uid=0, sudo_ok=None, creates=False)
    result = _run(tmp_path, chromium, log)
    assert result.returncode == 1
    assert "still missing" in result.stderr.strip().splitlines()[-1]
