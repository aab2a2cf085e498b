"""Where a results store lives and what its runs are called, without opening one.

Kept apart from the store itself so that a command can name the default store, or an id, on
its start-up path without importing SQLite and the store's readers.
"""

import os
import secrets
from datetime import UTC, datetime
from pathlib import Path

DEFAULT_STORE_PATH = Path("rulebench-results") / "rulebench.sqlite"
STORE_ENV_VAR = "RULEBENCH_STORE"
ID_DRAWS = 5
"""Ids a new run tries before giving up (each taken one needs another run's same-second draw)."""


def default_store_path() -> Path:
    """Where results go unless told otherwise: $RULEBENCH_STORE, else the working directory."""
    return Path(os.environ.get(STORE_ENV_VAR) or DEFAULT_STORE_PATH)


def new_run_id() -> str:
    """A sortable, readable run id: UTC start time plus random hex (e.g. 20261122-193015-a1b2c3)."""
    return f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def id_prefix_pattern(run_id: str) -> str:
    """A LIKE pattern (escape: backslash) for ids that start with `run_id` literally.

    A run may be named by the start of its id, as git names commits.
    """
    escaped = run_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"
