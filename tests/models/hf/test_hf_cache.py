"""The GGUF -> transformers conversion cache: where it lives, reuse, and the real conversion."""

from pathlib import Path

import pytest

from rulebench.models.hf.cache import (
    CACHE_ENV_VAR,
    SOURCE_FILE,
    cache_root,
    converted_folder,
    transformers_folder,
)
from rulebench.models.hf.loading import transformers_weights


def test_cache_root_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(CACHE_ENV_VAR, str(tmp_path / "mine"))
    assert cache_root() == tmp_path / "mine"
    monkeypatch.delenv(CACHE_ENV_VAR)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "rulebench"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_root() == tmp_path / "home" / ".cache" / "rulebench"


def test_a_finished_conversion_is_reused_and_a_changed_file_gets_its_own(tmp_path: Path) -> None:
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"not really gguf")
    target = converted_folder(gguf)
    assert target.parent == cache_root() / "models" and target.name.startswith("tiny-")
    target.mkdir(parents=True)
    (target / SOURCE_FILE).write_text("{}")
    assert transformers_folder(gguf) == target  # no conversion attempted
    gguf.write_bytes(b"other bytes")
    assert converted_folder(gguf) != target


def test_a_local_folder_is_used_as_it_is(tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"x")
    folder, identity = transformers_weights(str(tmp_path))
    assert folder == tmp_path and identity.startswith(f"hf/{tmp_path.name}@sha256:")


@pytest.mark.slow
def test_the_embedded_model_is_converted_once(model_cache: Path) -> None:
    from transformers import AutoConfig

    folder, identity = transformers_weights("SmolLM2-135M-Instruct")
    assert folder.parent == model_cache / "models" and (folder / SOURCE_FILE).is_file()
    assert (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file()
    assert AutoConfig.from_pretrained(folder).model_type == "llama"
    stamp = (folder / "model.safetensors").stat().st_mtime_ns
    assert transformers_weights("SmolLM2-135M-Instruct") == (folder, identity)
    assert (folder / "model.safetensors").stat().st_mtime_ns == stamp
    assert identity.startswith("hf/SmolLM2-135M-Instruct")
