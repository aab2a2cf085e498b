"""Whether a "running" run still runs, and why one that does not may have ended so.

A run's row says "running" until its process records how it ended; a process that died
first (killed, or unable to write its end) leaves that word behind, so readers check the
process too. Shared by the store's readers and by the tuning runs' own run files.
"""

import os
import shutil
from pathlib import Path

from rulebench.engine.store.records import RunRecord

LOW_DISK_BYTES = 16 * 1024 * 1024
"""Free space under which `why_killed` calls the store's file system full."""


def is_process_alive(pid: int) -> bool:
    """Whether a process with this id still exists (on this machine)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def effective_status(run: RunRecord) -> str:
    """The stored status, except that a "running" run whose process is gone reads "killed"."""
    if run.status == "running" and run.pid is not None and not is_process_alive(run.pid):
        return "killed"
    return run.status


def why_killed(store_path: Path) -> str:
    """Why a "killed" run (its process gone, its end never recorded) may have ended so.

    The store cannot say whether the process was killed or could not record its end; a full
    file system at the store, checked now, points to the second.
    """
    known = "its process ended without recording how the run ended"
    folder = store_path.absolute().parent
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        free = None
    if free is not None and free < LOW_DISK_BYTES:
        return (
            f"{known}: the store could not record its end, as its file system is full "
            f"({free:,} bytes free at {folder}); free disk space (and check the store's "
            "permissions), then resume the run"
        )
    return (
        f"{known} (killed, or the store could not be written: if it was not killed, check "
        "the store's disk space and permissions)"
    )
