"""A stop asked for from outside the work (a signal), honoured by a long loop at a step boundary.

Signals reach the whole process, so the request is process-wide. A loop that can stop cleanly
(GCG steps, training steps) says so with `watching_stop()` and checks `stop_requested()` between
steps; the signal handler asks it to stop only while one watches, and otherwise interrupts at
once (where nothing in flight is worth finishing). A stopped loop raises `Stopped`, a
KeyboardInterrupt, so every caller treats it as it treats Ctrl-C: the run is "interrupted".
"""

import threading
from collections.abc import Iterator
from contextlib import contextmanager

_requested = threading.Event()
_lock = threading.Lock()
_watchers = 0


class Stopped(KeyboardInterrupt):
    """A loop stopped at a step boundary because a stop was requested."""


def request_stop() -> bool:
    """Ask the watching loop to stop at its next step boundary.

    Returns:
        False when no loop watches: the caller must stop the work another way.
    """
    with _lock:
        if _watchers == 0:
            return False
        _requested.set()
        return True


def stop_requested() -> bool:
    """Whether a stop was requested (a loop checks this between steps)."""
    return _requested.is_set()


def raise_if_stop_requested() -> None:
    """Stop here if a stop was requested.

    Raises:
        Stopped: a stop was requested.
    """
    if _requested.is_set():
        raise Stopped


@contextmanager
def watching_stop() -> Iterator[None]:
    """Mark a loop that checks `stop_requested()` between steps, for as long as it runs.

    The request is cleared when the outermost watcher starts, so a stop asked of an earlier
    loop in the same process does not stop this one.
    """
    global _watchers
    with _lock:
        if _watchers == 0:
            _requested.clear()
        _watchers += 1
    try:
        yield
    finally:
        with _lock:
            _watchers -= 1
