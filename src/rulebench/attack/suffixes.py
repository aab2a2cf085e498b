"""A suffix as a user names it: a text file, or a `rulebench attack gcg` run in the store."""

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from rulebench.attack.stored import stored_suffix
from rulebench.core.errors import ConfigError, StoreError
from rulebench.engine.store.database import Store
from rulebench.engine.store.location import default_store_path


class Suffix(BaseModel):
    """A suffix to test, and where it came from."""

    model_config = ConfigDict(frozen=True)

    text: str
    source: str
    """As the user named it: a file, or "gcg run <id>"."""
    optimized_on: str | None = None
    """The model the attack ran on, when known (a GCG run)."""
    scenario: str | None = None
    """The scenario the attack targeted, when known."""

    def label(self) -> str:
        """E.g. "gcg run 20261125-...-a1b2 (hf/SmolLM2-135M-Instruct)"."""
        return self.source + (f" ({self.optimized_on})" if self.optimized_on else "")


def load_suffix(given: str, store: Path | None) -> Suffix:
    """The suffix `--suffix` names: a text file, else a GCG run (its last step's suffix).

    A file wins over a run id of the same name; its trailing newline is dropped (editors add
    one), nothing else: a GCG suffix's spaces are part of what was optimised.

    Raises:
        ConfigError: a blank name, a folder, an unreadable or blank file, or neither a file
            nor a run; StoreError: a run that is no GCG attack or has no step yet.
    """
    if not given.strip():
        raise ConfigError("--suffix needs a text file or the id of a `rulebench attack gcg` run")
    path = Path(given)
    if path.is_dir():
        raise ConfigError(f"--suffix {given}: is a directory, not a text file holding the suffix")
    if path.is_file():
        return Suffix(text=_suffix_file(path), source=str(path))
    return _suffix_run(given, store)


def _suffix_file(path: Path) -> str:
    try:
        # Bytes, not read_text: universal newlines would turn a "\r" inside the suffix into "\n".
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"--suffix {path}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise ConfigError(f"--suffix {path}: cannot read it: {exc.strerror}") from None
    text = text[:-2] if text.endswith("\r\n") else text.removesuffix("\n")
    if not text.strip():
        raise ConfigError(f"--suffix {path}: the file holds no suffix (it is empty or blank)")
    return text


def _suffix_run(run_id: str, store: Path | None) -> Suffix:
    """The last step's suffix of a stored GCG run; a missing run says the file is missing too."""
    where = store if store is not None else default_store_path()
    neither = (
        f"--suffix {run_id}: neither an existing file nor the id (or unique id prefix) of a "
        f"run in {where}"
    )
    if not where.exists():
        raise ConfigError(f"{neither} (no store there)")
    with Store(where, readonly=True) as db:
        try:
            run = db.get_run(run_id)
        except StoreError:
            raise ConfigError(neither) from None
        scenario = run.config.get("scenario")
        return Suffix(
            text=stored_suffix(db, run.id),
            source=f"gcg run {run.id}",
            optimized_on=run.model,
            scenario=scenario if isinstance(scenario, str) else None,
        )
