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
    """One LoRA tuning run on an IRFT data folder (loss on the completion only)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = f"hf/{EMBEDDED_MODEL_NAME}"
    """An hf model spec: hf/<local folder, .gguf file, cached hub id or the embedded model>."""
    data: Path
    """A folder written by `rulebench train data`."""
    output: Path
    """Where checkpoints, the adapter and (with merge) the merged model go."""
    rank: int = Field(default=16, ge=1, le=1024)
    alpha: int = Field(default=32, ge=1)
    """LoRA scale numerator: the adapter's output is scaled by alpha / rank."""
    dropout: float = Field(default=0.05, ge=0, lt=1)
    layers: int | None = Field(default=None, ge=1)
    """Put the adapter on the last N transformer layers only (default: every layer). The
    backward pass then stops at the lowest adapted layer: faster, at some cost in capacity."""
    learning_rate: float = Field(default=1e-3, gt=0, le=1)
    epochs: float | None = Field(default=None, gt=0)
    max_steps: int | None = Field(default=None, ge=1)
    """Optimizer steps; without it and without epochs, DEFAULT_MAX_STEPS."""
    batch_size: int = Field(default=8, ge=1)
    grad_accum: int = Field(default=1, ge=1)
    max_length: int = Field(default=512, ge=16)
    """Tokens per example (prompt, chat template and target); longer ones are cut at the end."""
    seed: int = 0
    save_steps: int = Field(default=20, ge=1)
    """A checkpoint every this many steps (about every 4 minutes on the CPU default)."""
    eval_size: int = Field(default=32, ge=0)
    """In-distribution test examples whose loss is measured before and after (0: none)."""
    limit: int | None = Field(default=None, ge=1)
    """Train on the first N training examples only."""
    merge: bool = False
    """Also save the weights merged with the adapter as a plain transformers folder."""
    device: Device = "auto"
    dtype: Dtype = "auto"
    """bfloat16 autocast (weights and adapter stay float32 on the CPU) or plain float32. auto:
    bfloat16 on a GPU that has it and on CPUs with bf16 instructions (AVX512-BF16, AMX), where
    a LoRA forward and backward pass runs clearly faster than in float32 (docs/performance.md),
    else float32. Formerly `precision` (fp32, bf16)."""

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
