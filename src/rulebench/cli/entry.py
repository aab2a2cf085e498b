"""The `rulebench` console script: signals are handled from its first moment.

Python turns a Ctrl-C during the imports (typer, rich, pydantic: a few tenths of a second)
into a KeyboardInterrupt traceback, and dies silently on SIGTERM. The handler `main` installs
before anything heavy ends the process instead with one line and 128 + the
signal number (130 for Ctrl-C, 143 for SIGTERM). A long command replaces it for as long as it
runs with its own (`rulebench.cli.interrupts`: stop cleanly, record the run, say how to resume).
"""

import atexit
import os
import signal
import sys
import threading
from types import FrameType
from typing import NoReturn

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _StoppedAtOnce(SystemExit):
    """The exit a signal raises before the command has its own handler."""


def _stop_at_once(signum: int, frame: FrameType | None) -> None:
    how = "Terminated (SIGTERM)." if signum == signal.SIGTERM else "Interrupted."
    sys.stderr.write(how + "\n")
    # SystemExit, not KeyboardInterrupt: typer would print "Aborted!" and exit 1.
    raise _StoppedAtOnce(128 + signum)


def _stop_behind(exc: BaseException) -> _StoppedAtOnce | None:
    """The signal's exit an exception was raised from, if any.

    A signal landing while a class is being made (a pydantic model, during the imports) raises
    its exit inside `__set_name__`, which Python re-raises as a RuntimeError caused by it.
    """
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, _StoppedAtOnce):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def install() -> None:
    """Handle SIGINT and SIGTERM until a command installs its own; an ignored one stays ignored.

    A process started in the background by a shell inherits an ignored SIGINT, and keeps it.
    """
    for signum in _SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, _stop_at_once)


PYDANTIC_PLUGINS_VARIABLE = "PYDANTIC_DISABLE_PLUGINS"


def skip_pydantic_plugins() -> None:
    """Spare the command pydantic's plugin search, unless the user set the variable that rules it.

    The first model class pydantic builds makes it read the entry points of every installed
    distribution, looking for plugins: a large share of a short command in an environment with
    many packages (docs/performance.md, "Start-up"). rulebench uses no pydantic plugin. A
    user who wants one (an observability plugin, say) sets PYDANTIC_DISABLE_PLUGINS to "" (or to
    the names of the plugins to leave out), and rulebench leaves it as set.
    """
    os.environ.setdefault(PYDANTIC_PLUGINS_VARIABLE, "__all__")


def main() -> None:
    """Run the `rulebench` command (rulebench.cli.app.main) with signals handled throughout."""
    install()  # before the first heavy import
    skip_pydantic_plugins()
    from rulebench.cli.app import main as run_app

    try:
        run_app()
    except SystemExit as stop:
        exit_now(stop.code)
    except Exception as exc:
        behind = _stop_behind(exc)
        if behind is None:
            raise
        exit_now(behind.code)  # the signal's line is printed already
    exit_now(0)


def exit_now(code: object) -> NoReturn:
    """Exit with `code`, skipping the interpreter's teardown when nothing can be lost by it.

    Local models are stopped and freed first, in order, whatever the exit.

    Tearing down the modules of pydantic, typer, rich and aiohttp takes a large share of a short
    command's time (bench/bench_startup.py). The teardown is skipped only once the command is
    over: exit handlers run (logging's flush among them), stdout and stderr are flushed, and no
    other thread is alive (a running thread, such as a store writer after a second Ctrl-C, gets
    Python's own exit, which waits for it). Anything else (a message as the code, a flush
    that fails on a closed pipe) also takes Python's own exit, with its usual report.
    """
    if code is None:
        code = 0
    from rulebench.models.release import release_local_models

    release_local_models()  # before the teardown: a native thread may still be decoding
    if not isinstance(code, int) or threading.active_count() > 1:
        raise SystemExit(code)
    try:
        _flush()
    except (OSError, ValueError):
        raise SystemExit(code) from None
    atexit._run_exitfuncs()
    try:
        _flush()  # what the exit handlers wrote
    except (OSError, ValueError):
        os._exit(120)  # the status Python gives when its own last flush fails
    os._exit(code)


def _flush() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
