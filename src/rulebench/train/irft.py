"""`rulebench train irft`: LoRA-tune an hf model on an IRFT data folder and record the run.

An output folder holds one run:

    irft-run.json     the run id, the config and the store it is recorded in (for --resume)
    checkpoints/      the trainer's periodic checkpoints (the last two are kept)
    adapter/          the final LoRA adapter and tokenizer (peft's format)
    merged/           with merge: base weights plus adapter, a plain transformers folder

The run is also a row of the results store (task "irft"): its config, the data hash and base
model identity, and in its notes the loss curve, eval loss before and after, wall time and
tokens per second.
"""

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, JsonValue

from rulebench.core.errors import ConfigError
from rulebench.core.run_kinds import TRAINING_TASK
from rulebench.engine.records import RunRecord
from rulebench.engine.store import Store, default_store_path
from rulebench.models.hf_loading import pick_device, transformers_weights
from rulebench.train.data import read_manifest
from rulebench.train.irft_config import TRAINING_FIELDS, IrftConfig, check_model_spec
from rulebench.train.stopping import train_until_stopped
from rulebench.train.trainer import (
    TrainingProgress,
    build_trainer,
    loss_curve,
    progress_callback,
    use_bf16,
)

TASK = TRAINING_TASK
RUN_FILE = "irft-run.json"


class IrftResult(BaseModel):
    """What a finished tuning run produced and measured."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    adapter: Path
    merged: Path | None
    steps: int
    train_tokens: int
    """Non-padding tokens the trainer saw in this invocation."""
    wall_s: float
    """Training time of this invocation (evaluation and saving excluded)."""
    tokens_per_s: float
    eval_loss_before: float | None
    eval_loss_after: float | None
    loss_curve: list[list[float]]
    """[step, training loss] pairs, earlier invocations of a resumed run included."""


class _Quiet:
    def begin(self, total_steps: int, done_steps: int) -> None:
        """Nothing to draw."""

    def update(self, step: int, loss: float | None) -> None:
        """Nothing to draw."""


@dataclass(frozen=True)
class _Job:
    """What one invocation trains with, beside the config."""

    run_id: str
    base_folder: Path
    device: str
    bf16: bool
    resume: bool
    eval_loss_before: float | None
    """Measured by the invocation that started the run (a resume does not measure it again)."""
    main: bool = True
    """The process that writes the run file and merged weights (rank 0 of several)."""


def process_rank() -> int:
    """This process's rank under `accelerate launch` or torchrun; 0 when it runs alone."""
    return int(os.environ.get("RANK", "0"))


def _train_as_worker(config: IrftConfig, resume: bool) -> IrftResult:
    """Another rank's share of a multi-process run: train in step with rank 0, record nothing.

    The trainer synchronises the ranks and saves on rank 0 only; the store and the run file
    are rank 0's too, so a run is recorded once however many processes train it.
    """
    base_folder, _ = transformers_weights(config.model_name)
    device = pick_device(config.device)
    job = _Job("", base_folder, device, use_bf16(config.precision, device), resume, None, False)
    return _train(config, job, _Quiet())


def run_irft(
    config: IrftConfig,
    resume: bool = False,
    store: Path | None = None,
    progress: TrainingProgress | None = None,
) -> IrftResult:
    """Tune, save the adapter (and merged weights), and record the run in the store.

    Raises:
        ConfigError: a model that cannot be tuned, an output folder that holds something else,
            or a resume whose options differ from the run's or that has no checkpoint yet.
        DataError: the data folder is not one `rulebench train data` wrote.
    """
    check_model_spec(config.model)
    manifest = read_manifest(config.data)
    if process_rank() != 0:
        return _train_as_worker(config, resume)
    base_folder, identity = transformers_weights(config.model_name)
    check_layers(config, base_folder)
    stored, store = _claim_output(config, resume, store, manifest.data_hash)
    device = pick_device(config.device)
    bf16 = use_bf16(config.precision, device)
    with Store(store) as db:
        meta: dict[str, JsonValue] = {"data_hash": manifest.data_hash, "base_model": identity}
        record, before = _open_record(db, config, stored, meta)
        job = _Job(record.id, base_folder, device, bf16, resume, before)
        try:
            result = _train(config, job, progress or _Quiet())
        except KeyboardInterrupt:
            db.finish_run(record.id, "interrupted", {})
            raise
        except Exception as exc:
            db.finish_run(record.id, "failed", {"reason": str(exc)})
            raise
        notes = result.model_dump(mode="json", exclude={"run_id"})
        hardware = {"device": device, "precision": "bf16" if bf16 else "fp32"}
        db.finish_run(record.id, "completed", notes | hardware)
    return result


def check_layers(config: IrftConfig, base_folder: Path) -> None:
    """Refuse --layers beyond the model's depth before anything is written.

    Raises:
        ConfigError: more layers than the model's config.json names.
    """
    if config.layers is None:
        return
    try:
        total = json.loads((base_folder / "config.json").read_text())["num_hidden_layers"]
    except (OSError, ValueError, KeyError):
        return  # no plain config to read: the trainer's own check speaks later
    if config.layers > total:
        raise ConfigError(f"train irft: --layers {config.layers}: the model has {total} layers")


def _open_record(
    db: Store, config: IrftConfig, stored: dict[str, Any] | None, meta: dict[str, JsonValue]
) -> tuple[RunRecord, float | None]:
    """A new run (and its run file), or the stored one reopened; and its eval loss before."""
    if stored is None:
        record = db.create_run(TASK, config.model, config.model_dump(mode="json") | meta)
        content = {"run_id": record.id, "config": config.model_dump(mode="json")}
        _write_run_file(config.output, content | meta | {"store": str(db.path)})
        return record, None
    before = stored.get("eval_loss_before")
    return db.reopen_run(str(stored["run_id"])), before if isinstance(before, float) else None


def _train(config: IrftConfig, job: _Job, progress: TrainingProgress) -> IrftResult:
    """Evaluate, train (from the last checkpoint when resuming), evaluate, save."""
    tracker = progress_callback(progress)
    trainer = build_trainer(config, job.base_folder, job.device, job.bf16, tracker)
    has_eval = trainer.eval_dataset is not None
    before = job.eval_loss_before
    if has_eval and not job.resume:
        before = _eval_loss(trainer)  # every rank evaluates: it is a collective step
        if job.main:
            _update_run_file(config.output, {"eval_loss_before": before})
    start = time.monotonic()
    train_until_stopped(trainer, job.resume)  # a requested stop: Stopped, a checkpoint kept
    wall_s = time.monotonic() - start
    tokens = int(trainer.state.num_input_tokens_seen) - tracker.tokens_at_begin
    adapter = config.output / "adapter"
    trainer.save_model(str(adapter))
    merged = config.output / "merged" if config.merge else None
    if merged is not None and job.main:
        _save_merged(trainer, merged)
    return IrftResult(
        run_id=job.run_id,
        adapter=adapter,
        merged=merged,
        steps=int(trainer.state.global_step),
        train_tokens=tokens,
        wall_s=round(wall_s, 2),
        tokens_per_s=round(tokens / wall_s, 2) if wall_s > 0 else 0.0,
        eval_loss_before=before,
        eval_loss_after=_eval_loss(trainer) if has_eval else None,
        loss_curve=loss_curve(trainer.state.log_history),
    )


def _eval_loss(trainer: Any) -> float:
    return round(float(trainer.evaluate()["eval_loss"]), 4)


def _save_merged(trainer: Any, folder: Path) -> None:
    """Base weights with the adapter folded in: what a vLLM server or the hf backend loads."""
    merged = trainer.model.merge_and_unload()
    merged.save_pretrained(str(folder))
    trainer.processing_class.save_pretrained(str(folder))


def _claim_output(
    config: IrftConfig, resume: bool, store: Path | None, data_hash: str
) -> tuple[dict[str, Any] | None, Path]:
    """(the run file of the run to resume or None, store path); refuses other folders."""
    folder = config.output
    if (folder / RUN_FILE).is_file():
        stored = read_run_file(folder)
        if not resume:
            raise ConfigError(
                f"{folder} holds IRFT run {stored['run_id']}: pass --resume to continue it, "
                "or pick a new output folder"
            )
        _check_same_training(config, stored["config"])
        if stored.get("data_hash", data_hash) != data_hash:
            raise ConfigError(f"--resume: the data in {config.data} changed since the run began")
        if not any((folder / "checkpoints").glob("checkpoint-*")):
            raise ConfigError(
                f"run {stored['run_id']} in {folder} has no checkpoint yet: nothing to resume "
                "(start it again in a new folder)"
            )
        return stored, store or Path(stored["store"])
    if resume:
        raise ConfigError(f"nothing to resume in {folder}: no {RUN_FILE} there")
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ConfigError(f"{folder} is not empty and holds no IRFT run: pick a new folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot create the output folder {folder}: {exc.strerror}") from None
    return None, store or default_store_path()


def _check_same_training(config: IrftConfig, stored: dict[str, Any]) -> None:
    given = config.model_dump(mode="json")
    changed = sorted(key for key in TRAINING_FIELDS if given.get(key) != stored.get(key))
    if changed:
        shown = ", ".join(f"{key} {given[key]!r} (run: {stored.get(key)!r})" for key in changed)
        raise ConfigError(f"--resume with other training options: {shown}; repeat the run's")


def read_run_file(folder: Path) -> dict[str, Any]:
    """The run file of a `train irft` output folder: run id, config, store (and data hash).

    Raises:
        ConfigError: the file is unreadable or not a run file.
    """
    path = folder / RUN_FILE
    try:
        content = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path}: unreadable run file: {exc}") from None
    if not isinstance(content, dict) or not {"run_id", "config", "store"} <= content.keys():
        raise ConfigError(f"{path}: not an IRFT run file (run_id, config, store)")
    return content


def _write_run_file(folder: Path, content: dict[str, Any]) -> None:
    try:
        (folder / RUN_FILE).write_text(json.dumps(content, indent=2) + "\n")
    except OSError as exc:
        raise ConfigError(f"cannot write {folder / RUN_FILE}: {exc.strerror}") from None


def _update_run_file(folder: Path, changes: dict[str, Any]) -> None:
    _write_run_file(folder, read_run_file(folder) | changes)
