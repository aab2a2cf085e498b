"""trl's SFT trainer with a peft LoRA adapter, set up from an IrftConfig.

The loop is trl's (and so transformers' Trainer's): checkpoints, resume, mixed precision and
several processes under `accelerate launch` (DDP, DeepSpeed, FSDP as accelerate configures
them) come from there, not from code of ours; run_irft records the run on rank 0 only.
"""

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from rulebench.core.errors import ConfigError
from rulebench.train.data import DATASET_FOLDER
from rulebench.train.irft_config import Dtype, IrftConfig

LOG_EVERY = 0.005
"""Log the loss every 0.5% of the steps: each step of a short CPU run, at most ~200 points."""


class TrainingProgress(Protocol):
    """Where the trainer reports progress (the CLI draws a bar; library callers may ignore it)."""

    def begin(self, total_steps: int, done_steps: int) -> None:
        """Training starts (or resumes with `done_steps` already done)."""
        ...

    def update(self, step: int, loss: float | None) -> None:
        """`step` optimizer steps are done; `loss` is the latest logged training loss."""
        ...

    def restart(self, run_id: str) -> None:
        """A resumed run had no checkpoint yet: it trains again from step 0."""
        ...


def use_bf16(dtype: Dtype, device: str) -> bool:
    """Whether to train in bf16: asked for, or (auto) where the hardware does it fast."""
    import torch

    if dtype != "auto":
        return dtype == "bfloat16"
    if device == "cuda":
        return bool(torch.cuda.is_bf16_supported())
    if device == "cpu":
        # Private helpers, absent from some builds: without them, float32.
        checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
        return any(getattr(torch.cpu, name, lambda: False)() for name in checks)
    return False


def load_model(folder: Path, device: str, bf16: bool) -> tuple[Any, Any]:
    """The base model and its tokenizer: bf16 weights on a bf16 GPU, float32 elsewhere.

    On the CPU the weights stay float32 under bf16 autocast: only the matrix products run in
    bf16, and the merged weights keep the base model's precision.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as transformers_logging

    # Only the CLI draws progress. transformers' logging helpers are untyped.
    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    dtype = torch.bfloat16 if bf16 and device == "cuda" else torch.float32
    model = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True, dtype=dtype)
    return model, tokenizer


def load_splits(config: IrftConfig) -> tuple[Any, Any | None]:
    """The training split (first `limit` rows) and the first `eval_size` in-distribution rows.

    Only trl's prompt-completion columns are kept: the facts beside them (string, rule ids)
    are for people and analyses, not for the trainer.
    """
    from datasets import load_from_disk
    from datasets.utils import logging as datasets_logging

    datasets_logging.disable_progress_bar()
    splits = load_from_disk(str(config.data / DATASET_FOLDER))
    train = splits["train"].select_columns(["prompt", "completion"])
    if config.limit is not None:
        train = train.select(range(min(config.limit, train.num_rows)))
    evaluation = None
    if config.eval_size and "test" in splits and splits["test"].num_rows:
        test = splits["test"].select_columns(["prompt", "completion"])
        evaluation = test.select(range(min(config.eval_size, test.num_rows)))
    return train, evaluation


def trainer_arguments(config: IrftConfig, checkpoints: Path, device: str, bf16: bool) -> Any:
    """Trl's SFTConfig for this run: completion-only loss, bf16 only on a GPU.

    No gradient checkpointing: a small model fits, and recomputing activations would cost
    about a third more time on the CPU.
    """
    from trl.trainer.sft_config import SFTConfig

    max_steps, epochs = config.steps_or_epochs()
    on_cpu = device == "cpu"
    return SFTConfig(
        output_dir=str(checkpoints),
        per_device_train_batch_size=config.batch_size,
        per_device_eval_batch_size=config.batch_size,
        gradient_accumulation_steps=config.grad_accum,
        learning_rate=config.learning_rate,
        warmup_steps=0.05,
        num_train_epochs=epochs,
        max_steps=max_steps,
        max_length=config.max_length,
        completion_only_loss=True,
        seed=config.seed,
        data_seed=config.seed,
        logging_steps=LOG_EVERY,
        save_strategy="steps",
        save_steps=config.save_steps,
        save_total_limit=2,
        report_to="none",
        bf16=bf16,
        activation_checkpointing=False,
        use_cpu=on_cpu,
        dataloader_pin_memory=not on_cpu,
        disable_tqdm=True,
        include_num_input_tokens_seen="non_padding",
    )


def build_trainer(config: IrftConfig, folder: Path, device: str, bf16: bool, callback: Any) -> Any:
    """An SFTTrainer for the base model in `folder`, a fresh LoRA adapter on every linear layer.

    Checkpoints go to `config.output / "checkpoints"`; `callback` sees the trainer's events.
    """
    from peft import LoraConfig
    from transformers import PrinterCallback
    from trl.trainer.sft_trainer import SFTTrainer

    model, tokenizer = load_model(folder, device, bf16)
    train, evaluation = load_splits(config)
    lora = LoraConfig(
        r=config.rank,
        lora_alpha=config.alpha,
        lora_dropout=config.dropout,
        task_type="CAUSAL_LM",
        **adapted_modules(model, config.layers),
    )
    with warnings.catch_warnings():
        # trl 1.16 still asks transformers 5 for the renamed is_gradient_checkpointing.
        warnings.filterwarnings("ignore", "`is_gradient_checkpointing`", FutureWarning)
        trainer = SFTTrainer(
            model=model,
            args=trainer_arguments(config, config.output / "checkpoints", device, bf16),
            train_dataset=train,
            eval_dataset=evaluation,
            processing_class=tokenizer,
            peft_config=lora,
            callbacks=[callback],
        )
    trainer.remove_callback(PrinterCallback)  # it prints every log line to stdout
    return trainer


def adapted_modules(model: Any, layers: int | None) -> dict[str, Any]:
    """LoraConfig's module choice: every linear layer, or those of the last `layers` blocks.

    peft takes "all-linear" only for the whole model; limited to some blocks it needs the
    linear modules' names, read here from the model (lm_head excluded, as "all-linear" does).

    Raises:
        ConfigError: more layers asked for than the model has.
    """
    import torch

    if layers is None:
        return {"target_modules": "all-linear"}
    total = int(model.config.num_hidden_layers)
    if layers > total:
        raise ConfigError(f"train irft: --layers {layers}: the model has {total} layers")
    names = sorted(
        {
            name.rsplit(".", 1)[-1]
            for name, module in model.named_modules()
            if isinstance(module, torch.nn.Linear) and ".layers." in f".{name}"
        }
    )
    return {"target_modules": names, "layers_to_transform": list(range(total - layers, total))}


def progress_callback(
    progress: TrainingProgress,
    on_checkpoint: Callable[[int, int], None] | None = None,
) -> Any:
    """A transformers TrainerCallback that forwards steps and losses to `progress`.

    Args:
        progress: where steps and losses go.
        on_checkpoint: called with (step, tokens seen in all) once a checkpoint is saved.
    """
    from transformers import TrainerCallback

    class _Forward(TrainerCallback):
        loss: float | None = None
        tokens_at_begin = 0
        """Tokens seen before this invocation (a resumed run's state starts with them)."""

        def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            self.tokens_at_begin = int(state.num_input_tokens_seen or 0)
            progress.begin(state.max_steps, state.global_step)

        def on_log(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            logs = kwargs.get("logs") or {}
            if "loss" in logs:
                self.loss = float(logs["loss"])
                progress.update(state.global_step, self.loss)

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            # Logging follows the step, so this shows the previous loss until on_log.
            progress.update(state.global_step, self.loss)

        def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if on_checkpoint is not None:
                on_checkpoint(int(state.global_step), int(state.num_input_tokens_seen or 0))

    return _Forward()


def loss_curve(log_history: list[dict[str, Any]]) -> list[list[float]]:
    """[step, training loss] for every logged step, from the trainer state's history."""
    return [[entry["step"], float(entry["loss"])] for entry in log_history if "loss" in entry]


def restore_checkpoint(trainer: Any, checkpoint: Path) -> None:
    """Load a checkpoint's adapter weights and trainer state into `trainer`, without training.

    For a run stopped after its final checkpoint but before its adapter was saved: training
    resumed from there would take one step past the end.
    """
    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file
    from transformers import TrainerState

    trainer.state = TrainerState.load_from_json(str(checkpoint / "trainer_state.json"))
    weights = load_file(str(checkpoint / "adapter_model.safetensors"))
    set_peft_model_state_dict(trainer.model, weights)
