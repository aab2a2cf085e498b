"""The `rulebench` console script: signals are handled from its first moment.

Python turns a Ctrl-C during the imports (typer, rich, pydantic: a few tenths of a second)
into a KeyboardInterrupt traceback, and dies silently on SIGTERM. The handler `main` installs
before anything heavy ends the process instead with one line and 128 + the
signal number (130 for Ctrl-C, 143 for SIGTERM). A long command replaces it for as long as it
runs with its own (`rulebench.cli.interrupts`: stop cleanly, record the run, say how to resume).
"""

import signal
import sys
from types import FrameType

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _stop_at_once(signum: int, frame: FrameType | None) -> None:
    how = "Terminated (SIGTERM)." if signum == signal.SIGTERM else "Interrupted."
    sys.stderr.write(how + "\n")
    # SystemExit, not KeyboardInterrupt: typer would print "Aborted!" and exit 1.
    raise SystemExit(128 + signum)


def install() -> None:
    """Handle SIGINT and SIGTERM until a command installs its own; an ignored one stays ignored.

    A process started in the background by a shell inherits an ignored SIGINT, and keeps it.
    """
    for signum in _SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, _stop_at_once)


def main() -> None:
    """Run the `rulebench` command (rulebench.cli.app.main) with signals handled throughout."""
    install()  # before the first heavy import
    from rulebench.cli.app import main as run_app

    run_app()
