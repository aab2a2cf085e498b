"""The user's rulebench cache folder: derived files worth keeping between processes.

What lives there can always be made again (model conversions, file fingerprints), so a cache
that cannot be read or written slows rulebench down but never stops it.
"""

import os
from pathlib import Path

CACHE_ENV_VAR = "RULEBENCH_CACHE_DIR"


def cache_root() -> Path:
    """The folder rulebench caches derived files in.

    $RULEBENCH_CACHE_DIR, else $XDG_CACHE_HOME/rulebench, else ~/.cache/rulebench (the XDG
    default, which platformdirs also gives on Linux).
    """
    if configured := os.environ.get(CACHE_ENV_VAR):
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "rulebench"
