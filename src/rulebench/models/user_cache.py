"""The user's rulebench cache folder: derived files worth keeping between processes.

What lives there can always be made again (model conversions, file fingerprints, a model
file's chat-template facts), so a cache that cannot be read or written slows rulebench down but
never stops it.
"""

import contextlib
import json
import logging
import os
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

CACHE_ENV_VAR = "RULEBENCH_CACHE_DIR"

FileKey = tuple[str, int, int]
"""A file as (resolved path, size, mtime in ns): a replaced or edited file gets a new key."""


def cache_root() -> Path:
    """The folder rulebench caches derived files in.

    $RULEBENCH_CACHE_DIR, else $XDG_CACHE_HOME/rulebench, else ~/.cache/rulebench (the XDG
    default, which platformdirs also gives on Linux).
    """
    if configured := os.environ.get(CACHE_ENV_VAR):
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "rulebench"


def file_key(path: Path) -> FileKey:
    """The key of a file's current contents; raises OSError if it cannot be read."""
    stat = path.stat()
    return str(path.resolve()), stat.st_size, stat.st_mtime_ns


class FileFacts:
    """Facts derived from files (a hash, metadata), kept in one JSON file of the user cache.

    An entry holds only while its file keeps the size and mtime it had; anything unreadable
    or torn counts as missing, so the caller derives the fact again.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        """The JSON file's name in the cache folder."""

    def get(self, key: FileKey) -> dict[str, Any] | None:
        """The facts stored for this file version, or None."""
        path, size, mtime_ns = key
        entry = self._read().get(path)
        if not isinstance(entry, dict) or (entry.get("size"), entry.get("mtime_ns")) != (
            size,
            mtime_ns,
        ):
            return None
        facts = entry.get("facts")
        return facts if isinstance(facts, dict) else None

    def put(self, key: FileKey, facts: dict[str, Any]) -> None:
        """Keep facts for later processes; a cache that cannot be written is skipped."""
        path, size, mtime_ns = key
        entries = self._read()
        entries[path] = {"size": size, "mtime_ns": mtime_ns, "facts": facts}
        target = cache_root() / self.name
        aside = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            # Written aside and renamed: a reader never sees half a file.
            aside.write_text(json.dumps(entries), encoding="utf-8")
            os.replace(aside, target)
        except OSError as exc:
            with contextlib.suppress(OSError):
                aside.unlink(missing_ok=True)
            logger.debug("cache file %s not written: %s", target, exc)

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads((cache_root() / self.name).read_text(encoding="utf-8"))
        except (OSError, ValueError):  # none yet, unreadable or torn
            return {}
        return data if isinstance(data, dict) else {}
