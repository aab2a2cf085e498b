"""Writes a kill cannot tear: a file or folder is either its previous whole self or the new one.

Everything is written beside its target under a name ending in `.tmp-<pid>` and renamed into
place once complete. A folder cannot be renamed over a non-empty one, so the old folder first
steps aside as `.old-<pid>` and is removed only after the new one is in place;
`remove_stale` (run before a run is resumed) puts such an old folder back when a kill came
between the two renames, and deletes what dead processes left half-written.
"""

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from rulebench.engine.store.run_liveness import is_process_alive

_LEFTOVER = re.compile(r"^(?P<name>.+)\.(?P<kind>tmp|old)-(?P<pid>\d+)$")


def staging(target: Path) -> Path:
    """Where this process writes `target` before `replace_folder` or `write_json` moves it."""
    return target.with_name(f"{target.name}.tmp-{os.getpid()}")


def write_json(path: Path, content: Any) -> None:
    """Write JSON to `path` through a synced temporary sibling and one rename."""
    temporary = staging(path)
    with temporary.open("w", encoding="utf-8") as handle:
        handle.write(json.dumps(content, indent=2) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    _sync_folder(path.parent)


def replace_folder(written: Path, target: Path) -> None:
    """Put the complete folder `written` (a `staging` path) in place of `target`.

    The old `target` is kept (as `<target>.old-<pid>`) until the new one has its name.
    """
    old = target.with_name(f"{target.name}.old-{os.getpid()}")
    if target.exists():
        os.rename(target, old)
    os.rename(written, target)
    _sync_folder(target.parent)
    shutil.rmtree(old, ignore_errors=True)


def remove_stale(folder: Path) -> list[Path]:
    """Undo what killed writers left in `folder`: put old folders back, delete temporary ones.

    Only leftovers of processes no longer alive are touched (this one's count as dead: a
    process calls this before it writes). Returns the paths removed or restored.
    """
    touched: list[Path] = []
    if not folder.is_dir():
        return touched
    for path in sorted(folder.iterdir()):
        match = _LEFTOVER.match(path.name)
        if match is None:
            continue
        pid = int(match["pid"])
        if pid != os.getpid() and is_process_alive(pid):
            continue
        target = folder / match["name"]
        if match["kind"] == "old" and not target.exists():
            os.rename(path, target)  # the kill came between the two renames: the old one stays
        elif path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
        touched.append(path)
    return touched


def _sync_folder(folder: Path) -> None:
    """Make a rename durable: the folder's entry list reaches the disk."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # a platform without directory descriptors: the rename is still atomic
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
