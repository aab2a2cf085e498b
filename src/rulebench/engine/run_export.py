"""Exporting one stored run as a front end asks: which format, which file, what to say after.

The format follows the one asked for and the file's suffix, and a file is never silently
something its name is not; an inspect log is named for `inspect view` when no file is given.
`rulebench runs export` only passes its options here and prints the lines that come back.
"""

from pathlib import Path
from typing import NamedTuple

from rulebench.core.errors import ConfigError, StoreError
from rulebench.core.run_kinds import TRAINING_TASK
from rulebench.engine.export import ExportFormat

SUFFIXES: dict[str, ExportFormat] = {".jsonl": "jsonl", ".csv": "csv", ".eval": "inspect"}
"""The formats file suffixes name (an inspect log may also be a .json file, when asked for)."""
INSPECT_LOG_DIR = Path("logs")
"""Where `--format inspect` writes without --output: the folder `inspect view` opens."""


class RunExported(NamedTuple):
    """A run written to a file, and what a front end says about it."""

    written: str
    """`wrote N results of run ID to PATH (FORMAT)`."""
    note: str | None
    """Why `inspect view` will not list the log (a name not starting with a time), or None."""


def export_format(output: Path | None, fmt: ExportFormat | None) -> ExportFormat:
    """The format to write: --format, else the file's suffix; never JSONL under another name.

    A suffix that names neither format (results.parquet, results.json) is refused unless
    --format says what to write, so a file is never silently something its name is not. An
    inspect log is a .eval or .json file (inspect reads no other name), named by default.

    Raises:
        ConfigError: the file's name and the format disagree, or no format can be chosen.
    """
    if fmt == "inspect":
        if output is not None and output.suffix.lower() not in (".eval", ".json"):
            raise ConfigError(
                f"--output {output}: an inspect log is a .eval or .json file (inspect reads "
                "no other)"
            )
        return fmt
    if output is None:
        raise ConfigError(
            "--output is required for JSONL and CSV exports (only --format inspect names "
            "its own file)"
        )
    suffix = output.suffix.lower()
    by_suffix = SUFFIXES.get(suffix)
    if fmt is not None and by_suffix is not None and fmt != by_suffix:
        raise ConfigError(f"--output {output} names a {suffix} file but --format is {fmt}")
    chosen = fmt or by_suffix
    if chosen is None:
        hint = "; for an inspect log add --format inspect" if suffix == ".json" else ""
        raise ConfigError(
            f"--output {output}: cannot write {suffix or 'a file without a suffix'}; "
            f"exports are JSONL (.jsonl) or CSV (.csv) (or name one with --format){hint}"
        )
    return chosen


def default_inspect_path(name: str) -> Path:
    """`logs/NAME`, the folder made if missing: `inspect view` run here opens it by default.

    Raises:
        StoreError: the folder cannot be made.
    """
    try:
        INSPECT_LOG_DIR.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot make {INSPECT_LOG_DIR}/: {exc.strerror or exc}") from None
    return INSPECT_LOG_DIR / name


def export_stored_run(
    store: Path | None, run_id: str, output: Path | None, fmt: ExportFormat | None
) -> RunExported:
    """Write run `run_id` (an id or a unique prefix) of `store` (None: the default one).

    Args:
        store: the results store.
        run_id: the run to export.
        output: the file to write; None names an inspect log in `INSPECT_LOG_DIR`.
        fmt: the format asked for; None: the one `output`'s suffix names.

    Raises:
        ConfigError: the format cannot be chosen (`export_format`), or a tuning run, which
            has no item results.
    """
    from rulebench.engine.catalog import TASKS
    from rulebench.engine.export import export_run
    from rulebench.engine.export_inspect import inspect_log_name, is_listed_by_inspect
    from rulebench.engine.store import Store

    chosen = export_format(output, fmt)
    with Store(store, readonly=True) as db:
        run = db.get_run(run_id)
        if run.task == TRAINING_TASK:
            raise ConfigError(
                f"run {run.id} is an IRFT tuning run: it has no item results to export; "
                f"`rulebench runs show {run.id}` prints its record (loss curve with --json)"
            )
        path = output or default_inspect_path(inspect_log_name(run))
        entry = TASKS.get(run.task)
        count = export_run(db, run, path, chosen, entry.group_by if entry else None)
    note = None
    if chosen == "inspect" and not is_listed_by_inspect(path.name):
        note = (
            "note: `inspect view` lists only logs whose names start with a time, as "
            f"{inspect_log_name(run)} does"
        )
    return RunExported(f"wrote {count} results of run {run.id} to {path} ({chosen})", note)
