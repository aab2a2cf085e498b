"""Exporting one stored run as a front end asks: which format, which file, what to say after.

The format follows the one asked for and the file's suffix, and a file is never silently
something its name is not; an inspect log is named for `inspect view` when no file is given.
`rulebench runs export` only passes its options here and prints the lines that come back.
"""

from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict

from rulebench.core.errors import ConfigError, StoreError
from rulebench.core.run_kinds import TRAINING_TASK
from rulebench.engine.export.run_export import ExportFormat

SUFFIXES: dict[str, ExportFormat] = {".jsonl": "jsonl", ".csv": "csv", ".eval": "inspect"}
"""The formats file suffixes name (an inspect log may also be a .json file, when asked for)."""
INSPECT_LOG_DIR = Path("logs")
"""Where `--format inspect` writes without --output: the folder `inspect view` opens."""


class ExportOptions(BaseModel):
    """What an export is asked for: the file and the format (one may follow from the other)."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    output: Path | None = None
    """File to write: .jsonl, .csv, or .eval (or .json) for --format inspect (which, without
    it, writes logs/<time>_<task>_<id>.eval for `inspect view`)."""
    format: ExportFormat | None = None
    """jsonl, csv, or inspect: an inspect_ai eval log that `inspect view` opens, .eval (read a
    sample at a time, for runs of any size) unless --output names a .json (default: from the
    file suffix, .jsonl or .csv)."""


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


def export_stored_run(store: Path | None, run_id: str, options: ExportOptions) -> RunExported:
    """Write run `run_id` (an id or a unique prefix) of `store` (None: the default one).

    Without `options.output`, an inspect log is named in `INSPECT_LOG_DIR`.

    Raises:
        ConfigError: the format cannot be chosen (`export_format`), or a tuning run, which
            has no item results.
    """
    from rulebench.engine.catalog import TASKS
    from rulebench.engine.export.inspect_log import inspect_log_name, is_listed_by_inspect
    from rulebench.engine.export.run_export import export_run
    from rulebench.engine.store.database import Store

    output = options.output
    chosen = export_format(output, options.format)
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
