"""Claiming a `train irft` output folder: a new run's empty folder, or the run to resume."""

from pathlib import Path
from typing import Any

from rulebench.core.errors import ConfigError, StoreError
from rulebench.core.run_kinds import TRAINING_TASK
from rulebench.core.validation import validate_into
from rulebench.engine.store.database import Store
from rulebench.engine.store.location import default_store_path
from rulebench.train.atomic_write import remove_stale
from rulebench.train.irft_config import RESUME_CHANGES, TRAINING_FIELDS, IrftConfig
from rulebench.train.irft_record import RUN_FILE, read_run_file


def claim_output(
    config: IrftConfig, resume: bool, store: Path | None, data_hash: str
) -> tuple[dict[str, Any] | None, Path]:
    """(the run file of the run to resume or None, store path); refuses other folders.

    Raises:
        ConfigError: a folder that holds another run (without --resume) or something else,
            or a resume with other training options or changed data (a run without a
            checkpoint yet is resumed all the same: it trains again from step 0).
    """
    folder = config.output
    remove_stale(folder)  # what killed writers left half-written
    if (folder / RUN_FILE).is_file():
        stored = read_run_file(folder)
        if not resume:
            raise ConfigError(
                f"{folder} holds IRFT run {stored['run_id']}: pass --resume to continue it, "
                "or pick a new output folder"
            )
        _check_same_training(config, stored["config"])
        if stored.get("data_hash", data_hash) != data_hash:
            raise ConfigError(f"--resume: the data in {config.data} changed since the run began")
        return stored, store or Path(stored["store"])
    if resume:
        raise ConfigError(f"nothing to resume in {folder}: no {RUN_FILE} there")
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ConfigError(f"{folder} is not empty and holds no IRFT run: pick a new folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot create the output folder {folder}: {exc.strerror}") from None
    return None, store or default_store_path()


def _check_same_training(config: IrftConfig, stored: dict[str, Any]) -> None:
    given = config.model_dump(mode="json")
    changed = sorted(key for key in TRAINING_FIELDS if given.get(key) != stored.get(key))
    if changed:
        shown = ", ".join(f"{key} {given[key]!r} (run: {stored.get(key)!r})" for key in changed)
        raise ConfigError(f"--resume with other training options: {shown}; repeat the run's")


def stored_config(
    run_id: str, store: Path | None, changes: dict[str, Any]
) -> tuple[IrftConfig, Path]:
    """(the config a stored tuning run was started with, the store's path), for `--resume RUN`.

    `changes` (None values ignored) may set only what a resumed run can change: merge,
    device, dtype. Runs stored with old field names (`precision`) read as they are.

    Raises:
        StoreError: no such run, or a run of another task.
        ConfigError: a change to a training option, or a stored config this version cannot read.
    """
    given = {name: value for name, value in changes.items() if value is not None}
    if refused := sorted(set(given) - RESUME_CHANGES):
        raise ConfigError(
            f"--resume continues run {run_id} with its own training options: drop "
            f"{', '.join('--' + name.replace('_', '-') for name in refused)}"
        )
    path = store or default_store_path()
    with Store(path) as db:
        record = db.get_run(run_id)
    if record.task != TRAINING_TASK:
        raise StoreError(
            f"run {record.id} is a '{record.task}' run, not a tuning run (`rulebench train irft`)"
        )
    known = set(IrftConfig.model_fields) | {"precision"}  # the row also holds data_hash...
    fields = {name: value for name, value in record.config.items() if name in known}
    config = validate_into(IrftConfig, fields | given, f"run {record.id}: stored irft config")
    return config, path
