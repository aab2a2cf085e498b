"""What `rulebench train irft` runs with: every option and its default (sized for a 2-core CPU).

The CLI, the Python API and a resumed run all read the defaults from here.
"""

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rulebench.core.errors import ConfigError
from rulebench.core.renamed import rename_fields
from rulebench.models.registry import EMBEDDED_MODEL_NAME, parse_spec
from rulebench.plugins.foreign_code import missing_modules

DEFAULT_MAX_STEPS = 60
"""The CPU default: 60 steps of 8 examples (480 examples), sized so that a default run ends in
a quarter of an hour or so on a small CPU (bench/bench_train.py; docs/performance.md)."""

Device = Literal["auto", "cpu", "cuda", "mps"]
Dtype = Literal["auto", "float32", "bfloat16"]
OLD_DTYPES = {"fp32": "float32", "bf16": "bfloat16"}
"""The old `precision` values, as runs stored before `dtype` hold them."""
TRAINING_MODULES = ("torch", "transformers", "peft", "trl", "datasets")


class IrftConfig(BaseModel):
    """One LoRA tuning run on an IRFT data folder (loss on the completion only).

    Each field's docstring is the help of the `train irft` option that fills it
    (`use_attribute_docstrings`); the comments above some say more.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    # A local folder, a .gguf file, a cached hub id or the embedded model.
    model: str = f"hf/{EMBEDDED_MODEL_NAME}"
    """hf/<folder, .gguf or cached hub id>."""
    data: Path
    """A folder from `rulebench train data`."""
    # With merge, the merged model goes there too.
    output: Path
    """Folder for checkpoints, adapter, merged."""
    rank: int = Field(default=16, ge=1, le=1024)
    """LoRA rank."""
    alpha: int = Field(default=32, ge=1)
    """LoRA alpha (scale = alpha / rank)."""
    dropout: float = Field(default=0.05, ge=0, lt=1)
    """LoRA dropout on the adapter's input (no option: the paper's setting)."""
    # Default: every layer. The backward pass stops at the lowest adapted layer: faster, at
    # some cost in capacity.
    layers: int | None = Field(default=None, ge=1)
    """Adapt only the last N transformer layers (faster backward)."""
    learning_rate: float = Field(default=1e-3, gt=0, le=1)
    """Peak learning rate (linear decay)."""
    epochs: float | None = Field(default=None, gt=0)
    """Passes over the data (instead of --max-steps)."""
    # Without it and without epochs: DEFAULT_MAX_STEPS.
    max_steps: int | None = Field(default=None, ge=1)
    """Optimizer steps."""
    batch_size: int = Field(default=8, ge=1)
    """Examples per device step."""
    grad_accum: int = Field(default=1, ge=1)
    """Steps accumulated per optimizer step."""
    # Prompt, chat template and target; longer examples are cut at the end.
    max_length: int = Field(default=512, ge=16)
    """Token limit per example."""
    seed: int = 0
    """Seed of adapter init, data order, dropout."""
    # About every 4 minutes on the CPU default.
    save_steps: int = Field(default=20, ge=1)
    """A checkpoint every N steps."""
    # In-distribution test examples.
    eval_size: int = Field(default=32, ge=0)
    """Test examples whose loss is measured before and after (0: off)."""
    limit: int | None = Field(default=None, ge=1)
    """Train on the first N examples only."""
    merge: bool = False
    """Also save merged weights (transformers folder)."""
    device: Device = "auto"
    """Where to train."""
    # Weights and adapter stay float32 on the CPU under autocast. auto picks bfloat16 on a GPU
    # that has it and on CPUs with bf16 instructions (AVX512-BF16, AMX), where a LoRA forward
    # and backward pass runs clearly faster than in float32 (docs/performance.md). Formerly
    # `precision` (fp32, bf16).
    dtype: Dtype = "auto"
    """bfloat16 autocast or float32; auto: bfloat16 where the GPU or CPU has it."""

    @model_validator(mode="before")
    @classmethod
    def _old_names(cls, data: Any) -> Any:
        data = rename_fields(data, {"precision": "dtype"}, "irft")
        if isinstance(data, dict) and data.get("dtype") in OLD_DTYPES:
            data = {**data, "dtype": OLD_DTYPES[data["dtype"]]}
        return data

    @model_validator(mode="after")
    def _check(self) -> "IrftConfig":
        if self.epochs is not None and self.max_steps is not None:
            raise ValueError("give epochs or max_steps, not both")
        return self

    @property
    def model_name(self) -> str:
        """The spec without its provider: what the hf backend resolves."""
        return self.model.partition("/")[2]

    def steps_or_epochs(self) -> tuple[int, float]:
        """(max_steps, epochs) as the trainer takes them: max_steps -1 means "run the epochs"."""
        if self.epochs is not None:
            return -1, self.epochs
        return self.max_steps or DEFAULT_MAX_STEPS, 1.0


def check_model_spec(spec: str) -> None:
    """Refuse a spec that cannot be tuned here: only hf models have weights to train.

    Raises:
        ConfigError: an unknown provider, or one that is not hf (an HTTP or llama.cpp model).
    """
    provider, _ = parse_spec(spec)
    if provider != "hf":
        raise ConfigError(
            f"irft tunes hf models only: '{spec}' is a {provider} model without trainable "
            f"weights here; use hf/<folder, .gguf or cached hub id> (e.g. hf/{EMBEDDED_MODEL_NAME})"
        )
    if missing := missing_modules(TRAINING_MODULES):
        raise ConfigError(
            f"irft needs {', '.join(missing)}, not installed: pip install 'rulebench[train]'"
        )


RESUME_CHANGES = frozenset({"merge", "device", "dtype"})
"""What a resumed run may change: where and how it computes, not what it learns."""
TRAINING_FIELDS = frozenset(IrftConfig.model_fields) - RESUME_CHANGES - {"output"}
"""What a resumed run must keep: everything that changes the trained weights."""
