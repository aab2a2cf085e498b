"""Finding and loading hf weights offline: a local path, the hub cache or the embedded GGUF."""

import hashlib
import logging
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rulebench.core.errors import ConfigError
from rulebench.models.embedded import embedded_gguf_path, file_fingerprint
from rulebench.models.hf.cache import transformers_folder
from rulebench.models.local_chat import NO_VARIABLES
from rulebench.models.registry import EMBEDDED_MODEL_NAME

logger = logging.getLogger(__name__)

_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt")


@dataclass(frozen=True)
class HFSource:
    """Where a model's weights are, and what pins them."""

    location: str
    """A local directory (a snapshot folder for hub ids)."""
    gguf_file: str | None
    """A GGUF file inside `location` to dequantize, instead of safetensors weights."""
    display_name: str
    identity: str
    """Name plus revision or file hash; part of the response cache key."""

    def weights_folder(self) -> Path:
        """The transformers folder to load: `location`, or a GGUF's cached conversion.

        Raises:
            ConfigError: a GGUF that cannot be converted, or a cache that cannot be written.
        """
        if self.gguf_file is None:
            return Path(self.location)
        return transformers_folder(Path(self.location) / self.gguf_file)


@dataclass(frozen=True)
class LoadedModel:
    """A transformers model and tokenizer on their device."""

    model: Any
    tokenizer: Any
    device: str
    eos_token_ids: frozenset[int]
    """Every token that ends a reply: the tokenizer's and the generation config's."""

    @property
    def dtype_name(self) -> str:
        """The weights' dtype as torch names it without its prefix, e.g. "float32"."""
        return str(self.model.dtype).removeprefix("torch.")

    @property
    def has_chat_template(self) -> bool:
        """Whether the tokenizer ships a chat template (base models often do not)."""
        return bool(self.tokenizer.chat_template)

    def render(
        self,
        messages: list[dict[str, str]],
        variables: Mapping[str, object] = NO_VARIABLES,
        chat_template: str | None = None,
    ) -> str:
        """Render messages with a chat template (the model's own by default), ready for a reply.

        `variables` reach the template beside `messages` (`enable_thinking`); a template that
        never reads one renders as without it.

        Raises:
            ConfigError: no template given and the tokenizer has none.
        """
        if chat_template is None and not self.has_chat_template:
            raise ConfigError(
                "hf: this model has no chat template; prompt it with -M transcript=default or "
                "-M chat_template=FILE.jinja"
            )
        text: str = self.tokenizer.apply_chat_template(
            messages,
            tokenize=False,
            add_generation_prompt=True,
            chat_template=chat_template,
            **variables,
        )
        return text

    def plain_text_bos(self) -> str:
        """The BOS text a plain-text prompt needs in front, as the tokenizer would add it.

        Prompts are tokenized without special tokens (a chat template writes them), so a
        transcript prompt carries BOS itself for models trained with one (Llama-style).
        """
        tokenizer = self.tokenizer
        added: list[int] = tokenizer("x")["input_ids"]
        bare: list[int] = tokenizer("x", add_special_tokens=False)["input_ids"]
        bos = tokenizer.bos_token_id
        adds_bos = bos is not None and len(added) > len(bare) and added[0] == bos
        return str(tokenizer.bos_token) if adds_bos else ""


def resolve_source(name: str) -> HFSource:
    """Say where the weights a name means are: the embedded GGUF, a local path or the hub cache.

    Raises:
        ConfigError: the name is no local path and no model in the local Hugging Face cache.
    """
    if name.lower() == EMBEDDED_MODEL_NAME.lower():
        path = embedded_gguf_path()
        return _gguf_source(path, EMBEDDED_MODEL_NAME)
    path = Path(name).expanduser()
    if path.is_file() and path.suffix.lower() == ".gguf":
        return _gguf_source(path.resolve(), name)
    if path.is_dir():
        folder = path.resolve()
        identity = f"hf/{folder.name}@sha256:{_folder_fingerprint(folder)}"
        return HFSource(str(folder), None, name, identity)
    return _cached_hub_source(name)


def transformers_weights(name: str) -> tuple[Path, str]:
    """The transformers folder and the identity of the hf model `name` (the spec after hf/).

    What training starts from: a GGUF (the embedded model included) goes through its cached
    conversion, a local folder or a hub snapshot is used as it is. The identity is the one the
    hf backend records, so a tuning run's record pins its base weights.
    """
    source = resolve_source(name)
    return source.weights_folder(), source.identity


def _gguf_source(path: Path, display_name: str) -> HFSource:
    identity = f"hf/{path.name}@sha256:{file_fingerprint(path)}"
    return HFSource(str(path.parent), path.name, display_name, identity)


def _folder_fingerprint(folder: Path) -> str:
    """Hash the weight files of a model folder (each memoised), so changed weights change it."""
    weights = sorted(p for p in folder.iterdir() if p.suffix in _WEIGHT_SUFFIXES)
    if not weights:
        raise ConfigError(f"hf: {folder} holds no weight files ({', '.join(_WEIGHT_SUFFIXES)})")
    listing = "\n".join(f"{p.name}:{file_fingerprint(p)}" for p in weights)
    return hashlib.sha256(listing.encode()).hexdigest()[:16]


def _cached_hub_source(name: str) -> HFSource:
    from huggingface_hub import constants, snapshot_download

    try:
        folder = Path(snapshot_download(name, local_files_only=True))
    # LocalEntryNotFoundError (an OSError) when not cached, HFValidationError (a ValueError)
    # when the name cannot be a hub id at all.
    except (OSError, ValueError):
        raise ConfigError(
            f"hf: '{name}' is neither a local path nor a model in the local Hugging Face cache "
            f"({constants.HF_HUB_CACHE}); rulebench never downloads weights: fetch it first "
            f"(`huggingface-cli download {name}`) or pass a directory"
        ) from None
    # Snapshot folders are named by the commit they hold, which pins the weights.
    return HFSource(str(folder), None, name, f"hf/{name}@{folder.name}")


def pick_device(device: Literal["auto", "cpu", "cuda", "mps"]) -> str:
    """Resolve `auto` to the best available device; refuse one that is missing."""
    import torch

    available = {
        "cpu": True,
        "cuda": torch.cuda.is_available(),
        "mps": torch.backends.mps.is_available(),
    }
    if device == "auto":
        return next(d for d in ("cuda", "mps", "cpu") if available[d])
    if not available[device]:
        raise ConfigError(f"hf: -M device={device}: no such device here (cpu works everywhere)")
    return device


def pick_dtype(dtype: Literal["auto", "float32", "bfloat16", "float16"], device: str) -> Any:
    """Resolve `auto`: float32 on the CPU, bfloat16 on a GPU that has it, else float16."""
    import torch

    if dtype != "auto":
        return getattr(torch, dtype)
    if device == "cpu":
        return torch.float32
    if device == "cuda" and torch.cuda.is_bf16_supported():
        return torch.bfloat16
    return torch.float16


def load_model(
    source: HFSource,
    device: Literal["auto", "cpu", "cuda", "mps"],
    dtype: Literal["auto", "float32", "bfloat16", "float16"],
    adapter: Path | None = None,
) -> LoadedModel:
    """Load tokenizer and model from local files only, left-padding for batched generation.

    A GGUF is read from its cached transformers conversion (made on first use), so it loads in
    well under a second instead of being dequantized every time. A LoRA `adapter` (a peft
    folder, as `rulebench train irft` saves it) is folded into the weights in memory.

    Raises:
        ConfigError: the files or the adapter cannot be loaded.
    """
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as transformers_logging

    target = pick_device(device)
    folder = source.weights_folder()
    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    try:
        tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        model: Any = AutoModelForCausalLM.from_pretrained(
            folder, local_files_only=True, dtype=pick_dtype(dtype, target)
        )
    except (OSError, ValueError) as exc:
        raise ConfigError(f"hf: cannot load {source.display_name} from {folder}: {exc}") from exc
    if adapter is not None:
        model = with_adapter(model, adapter)
    tokenizer.padding_side = "left"
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    model.to(target).eval()
    return LoadedModel(model, tokenizer, target, _eos_ids(model, tokenizer))


ADAPTER_CONFIG = "adapter_config.json"
"""What makes a folder a peft adapter."""


def check_adapter(folder: Path) -> str:
    """A fingerprint of a LoRA adapter folder's weights, for the model's identity.

    Raises:
        ConfigError: the folder is no peft adapter (no adapter_config.json) or holds no weights.
    """
    if not (folder / ADAPTER_CONFIG).is_file():
        raise ConfigError(
            f"hf: -M adapter={folder}: not a LoRA adapter folder (no {ADAPTER_CONFIG}); pass the "
            "adapter/ folder of a `rulebench train irft` output"
        )
    return _folder_fingerprint(folder)


def with_adapter(model: Any, folder: Path) -> Any:
    """`model` with the LoRA adapter in `folder` merged into its weights (in memory only).

    Raises:
        ConfigError: peft is missing, or the adapter does not fit the model.
    """
    try:
        from peft import PeftModel
    except ImportError:
        raise ConfigError(
            "hf: -M adapter needs peft, not installed: pip install 'rulebench[train]'"
        ) from None
    try:
        with warnings.catch_warnings():
            # peft asks transformers 5 for the renamed is_gradient_checkpointing.
            warnings.filterwarnings("ignore", "`is_gradient_checkpointing`", FutureWarning)
            return PeftModel.from_pretrained(model, str(folder)).merge_and_unload()
    except (OSError, ValueError, RuntimeError, KeyError) as exc:
        raise ConfigError(f"hf: -M adapter={folder} does not fit this model: {exc}") from None


def _eos_ids(model: Any, tokenizer: Any) -> frozenset[int]:
    configured = model.generation_config.eos_token_id
    ids = set(configured if isinstance(configured, list) else [configured])
    ids.add(tokenizer.eos_token_id)
    return frozenset(i for i in ids if i is not None)
