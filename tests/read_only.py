"""A folder seen read-only, for the tests of stores on read-only media."""

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def read_only_view_of(tmp_path: Path) -> Iterator[tuple[Path, Path, bool]]:
    """(writable folder, the same folder seen read-only, whether that is real read-only media).

    As root: a read-only bind mount, real read-only media. Else the writable folder itself,
    which permissions make read-only for an ordinary user (and not for root).
    """
    source, view = tmp_path / "source", tmp_path / "view"
    source.mkdir()
    view.mkdir()
    if os.geteuid() != 0:
        yield source, source, False
        return
    mounted = subprocess.run(
        f"mount --bind {source} {view} && mount -o remount,ro,bind {view}",
        shell=True,
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip("cannot make read-only media here (mount needs CAP_SYS_ADMIN as root)")
    try:
        yield source, view, True
    finally:
        subprocess.run(["umount", str(view)], check=False)
