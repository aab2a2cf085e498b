"""GGUF files as transformers folders, converted once into the user cache.

transformers dequantizes a GGUF on every load (slow, tokenizer included) and refuses to save such a
model (it counts as quantized), so the weights are copied into a plain model built from the same
config and saved as safetensors in the user cache. Later loads read that folder quickly. The folder
is named by the GGUF's content hash, so a changed file gets a new conversion and never a stale one.
"""

import json
import logging
import shutil
import tempfile
from pathlib import Path

from rulebench.core.errors import ConfigError
from rulebench.models.embedded import file_fingerprint
from rulebench.models.user_cache import CACHE_ENV_VAR, cache_root

__all__ = ["CACHE_ENV_VAR", "cache_root", "converted_folder", "is_converted"]

logger = logging.getLogger(__name__)

SOURCE_FILE = "rulebench-source.json"
"""Written last into a converted folder: a folder without it is an interrupted conversion."""


def converted_folder(gguf: Path) -> Path:
    """Where the transformers conversion of a GGUF file lives (it may not exist yet)."""
    return cache_root() / "models" / f"{gguf.stem}-{file_fingerprint(gguf)}"


def is_converted(folder: Path) -> bool:
    """Whether a conversion finished in `folder`."""
    return (folder / SOURCE_FILE).is_file()


def transformers_folder(gguf: Path) -> Path:
    """The transformers folder holding a GGUF file's weights and tokenizer, converting once.

    The conversion is written into a temporary folder beside its place and renamed into it,
    so an interrupted one leaves nothing that looks finished, and of two processes converting
    at once one rename wins and the other's copy is dropped.

    Raises:
        ConfigError: the file cannot be read or converted, or the cache cannot be written.
    """
    target = converted_folder(gguf)
    if is_converted(target):
        return target
    logger.warning("converting %s to a transformers folder in %s (once)", gguf.name, target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    except OSError as exc:
        raise ConfigError(f"cannot write the model cache {target.parent}: {exc.strerror}") from None
    try:
        _convert(gguf, scratch)
        try:
            scratch.rename(target)
        except OSError:
            if not is_converted(target):  # not a concurrent winner: a real failure
                raise
    except OSError as exc:
        raise ConfigError(f"cannot write the model cache {target}: {exc.strerror}") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target


def _convert(gguf: Path, folder: Path) -> None:
    """Dequantize a GGUF with transformers and save it as a plain float32 safetensors model."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as transformers_logging

    # Only the CLI draws progress (the GGUF reader's own tqdm bar cannot be turned off).
    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    where = {"pretrained_model_name_or_path": str(gguf.parent), "gguf_file": gguf.name}
    try:
        tokenizer = AutoTokenizer.from_pretrained(**where, local_files_only=True)
        loaded = AutoModelForCausalLM.from_pretrained(
            **where, local_files_only=True, dtype=torch.float32
        )
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot convert {gguf}: {exc}") from None
    settings = loaded.config.to_dict()
    settings.pop("quantization_config", None)  # what makes transformers refuse to save it
    # transformers' auto classes are untyped.
    plain = AutoModelForCausalLM.from_config(  # type: ignore[no-untyped-call]
        type(loaded.config).from_dict(settings), dtype=torch.float32
    )
    plain.load_state_dict(loaded.state_dict(), strict=True)
    plain.generation_config = loaded.generation_config
    plain.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    source = {"gguf": str(gguf), "sha256_prefix": file_fingerprint(gguf)}
    (folder / SOURCE_FILE).write_text(json.dumps(source, indent=2) + "\n")
