"""Running the real `rulebench` command in a subprocess: exit codes, stdout/stderr, signals."""

import os
import subprocess
import sys

ENTRY = "import sys; from rulebench.cli.entry import main; sys.argv[0] = 'rulebench'; main()"


def rulebench_command(*args: str) -> list[str]:
    """The command line that runs `rulebench ARGS` (for Popen, when a test signals or polls)."""
    return [sys.executable, "-c", ENTRY, *args]


def rulebench(
    *args: str, env: dict[str, str] | None = None, preamble: str = ""
) -> subprocess.CompletedProcess[str]:
    """Run `rulebench ARGS` to the end; `preamble` is Python run first (e.g. to hide a library).

    Output is wide and uncoloured so tests can read whole lines; the environment is this
    process's unless `env` is given.
    """
    base = dict(os.environ if env is None else env)
    for forced in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        base.pop(forced, None)
    return subprocess.run(
        [sys.executable, "-c", f"{preamble}\n{ENTRY}", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=base | {"COLUMNS": "200", "PYTHONIOENCODING": "utf-8"},
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str], *expected: str) -> str:
    """Exit 1, no traceback, and a last stderr line "error: ..." holding every expected part."""
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: "), result.stderr
    for part in expected:
        assert part in last, (part, result.stderr)
    return last
