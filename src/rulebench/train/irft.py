"""`rulebench train irft`: LoRA-tune an hf model on an IRFT data folder and record the run.

An output folder holds one run:

    irft-run.json     the run id, the config, the store it is recorded in (for --resume), each
                      invocation (process) that trained it and, once finished, its notes
    checkpoints/      the trainer's periodic checkpoints (the last two are kept)
    adapter/          the final LoRA adapter and tokenizer (peft's format)
    merged/           with merge: base weights plus adapter, a plain transformers folder

The run is also a row of the results store (task "irft"): its config, the data hash and base
model identity, and in its notes the loss curve, eval loss before and after, wall time and
tokens per second over every invocation. The adapter and merged folders and the run file are
replaced whole (`atomic_write`); the run file's notes are written after them and before the
store row, so a run whose run file has notes is finished, and resuming it changes nothing.
"""

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, JsonValue

from rulebench.core.errors import ConfigError
from rulebench.core.run_kinds import TRAINING_TASK
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord
from rulebench.models.hf.loading import pick_device, transformers_weights
from rulebench.train.atomic_write import replace_folder, staging
from rulebench.train.data import read_manifest
from rulebench.train.irft_config import IrftConfig, check_model_spec
from rulebench.train.irft_output import claim_output, stored_config
from rulebench.train.irft_record import (
    RUN_FILE,
    Checkpoint,
    Invocation,
    InvocationLog,
    check_no_steps_kept,
    close_dead,
    incomplete_checkpoints,
    invocations,
    last_checkpoint,
    read_run_file,
    totals,
    update_run_file,
    write_run_file,
)
from rulebench.train.stopping import train_until_stopped
from rulebench.train.trainer import (
    TrainingProgress,
    build_trainer,
    loss_curve,
    progress_callback,
    restore_checkpoint,
    use_bf16,
)

TASK = TRAINING_TASK
__all__ = ["RUN_FILE", "IrftResult", "read_run_file", "resume_irft", "run_irft"]


class IrftResult(BaseModel):
    """What a finished tuning run produced and measured."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    adapter: Path
    merged: Path | None
    steps: int
    train_tokens: int
    """Non-padding tokens of the run's steps, summed over its invocations."""
    wall_s: float
    """Training time summed over the invocations (evaluation and saving excluded)."""
    tokens_per_s: float
    eval_loss_before: float | None
    eval_loss_after: float | None
    loss_curve: list[list[float]]
    """[step, training loss] pairs, earlier invocations of a resumed run included."""
    invocations: list[Invocation] = []
    """Each process that trained the run, in order (none for a rank other than 0)."""
    finished_earlier: bool = False
    """--resume found the run finished: nothing was trained or written (not stored)."""


class _Quiet:
    def begin(self, total_steps: int, done_steps: int) -> None:
        """Nothing to draw."""

    def update(self, step: int, loss: float | None) -> None:
        """Nothing to draw."""

    def restart(self, run_id: str) -> None:
        """Nothing to say."""


@dataclass(frozen=True)
class _Job:
    """What one invocation trains with, beside the config."""

    run_id: str
    base_folder: Path
    device: str
    bf16: bool
    start: Checkpoint | None
    """The checkpoint to go on from (None: a new run)."""
    eval_loss_before: float | None
    """Measured by the invocation that started the run (a resume does not measure it again)."""
    log: InvocationLog | None = None
    """This invocation in the run file; None on ranks other than 0, which record nothing."""


@dataclass(frozen=True)
class _Trained:
    """What `_train` leaves: the adapter (and merged weights) staged beside their places."""

    steps: int
    tokens_seen: int
    eval_loss_before: float | None
    eval_loss_after: float | None
    loss_curve: list[list[float]]
    adapter: Path
    merged: Path | None


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
    start = last_checkpoint(config.output / "checkpoints") if resume else None
    job = _Job("", base_folder, device, use_bf16(config.dtype, device), start, None)
    trained = _train(config, job, _Quiet())
    return IrftResult(
        run_id="",
        adapter=config.output / "adapter",
        merged=trained.merged,
        steps=trained.steps,
        **{"train_tokens": 0, "wall_s": 0.0, "tokens_per_s": 0.0},
        eval_loss_before=trained.eval_loss_before,
        eval_loss_after=trained.eval_loss_after,
        loss_curve=trained.loss_curve,
    )


def run_irft(
    config: IrftConfig,
    resume: bool = False,
    store: Path | None = None,
    progress: TrainingProgress | None = None,
) -> IrftResult:
    """Tune, save the adapter (and merged weights), and record the run in the store.

    Resuming a finished run trains and writes nothing: its stored result comes back, with
    `finished_earlier` set. Resuming a run stopped before its first checkpoint trains it again
    from step 0 in the same folder (`progress.restart` says so).

    Raises:
        ConfigError: a model that cannot be tuned, an output folder that holds something else,
            or a resume whose options differ from the run's.
        DataError: the data folder is not one `rulebench train data` wrote.
    """
    check_model_spec(config.model)
    manifest = read_manifest(config.data)
    if process_rank() != 0:
        return _train_as_worker(config, resume)
    stored, store_path = None, store
    if resume:  # a finished run is answered before any model is looked at
        stored, store_path = claim_output(config, resume, store, manifest.data_hash)
        notes = _finished_notes(stored, store_path) if stored else None
        if stored is not None and notes is not None:
            return _finished(stored, notes, store_path)
    base_folder, identity = transformers_weights(config.model_name)
    check_layers(config, base_folder)  # before a new run's folder is made
    if not resume:
        stored, store_path = claim_output(config, resume, store, manifest.data_hash)
    assert store_path is not None  # claim_output always names one
    device = pick_device(config.device)
    bf16 = use_bf16(config.dtype, device)
    hardware: dict[str, JsonValue] = {"device": device, "precision": "bf16" if bf16 else "fp32"}
    progress = progress or _Quiet()
    with Store(store_path) as db:
        meta: dict[str, JsonValue] = {"data_hash": manifest.data_hash, "base_model": identity}
        record, before, start, log = _open_record(db, config, stored, meta, progress)
        job = _Job(record.id, base_folder, device, bf16, start, before, log)
        try:
            return _commit(db, config, job, _train(config, job, progress), hardware)
        except KeyboardInterrupt:
            _end(db, job, "interrupted", {})
            raise
        except Exception as exc:
            _end(db, job, "failed", {"reason": str(exc)})
            raise


def resume_irft(
    run_id: str,
    store: Path | None = None,
    progress: TrainingProgress | None = None,
    **changes: Any,
) -> IrftResult:
    """Continue a stopped run (by id, as `train irft --resume RUN`) with its stored options.

    Only merge, device and dtype may be changed (`changes`; None leaves them as stored).

    Raises:
        StoreError: no such run, or not a tuning run.
        ConfigError: as `run_irft`, or a change to a training option.
    """
    config, store_path = stored_config(run_id, store, changes)
    return run_irft(config, resume=True, store=store_path, progress=progress)


def _end(
    db: Store, job: _Job, status: Literal["interrupted", "failed"], notes: dict[str, JsonValue]
) -> None:
    """Record an invocation that ended before the run finished (its kept steps stay counted)."""
    assert job.log is not None  # rank 0 always has one
    job.log.end(status)
    job.log.write()
    listed = job.log.listed()
    counts: dict[str, JsonValue] = {
        **totals(listed),
        "invocations": [entry.model_dump(mode="json") for entry in listed],
    }
    db.finish_run(job.run_id, status, notes | counts)


def _commit(
    db: Store, config: IrftConfig, job: _Job, trained: _Trained, hardware: dict[str, JsonValue]
) -> IrftResult:
    """Put the adapter and merged weights in place, then the run file's notes, then the row.

    This order makes the run file's notes the mark of a finished run: a kill before them
    leaves a run that a resume finishes (from its last checkpoint, without training again).
    """
    assert job.log is not None  # rank 0 always has one
    adapter = config.output / "adapter"
    replace_folder(trained.adapter, adapter)
    merged = None
    if trained.merged is not None:
        merged = config.output / "merged"
        replace_folder(trained.merged, merged)
    job.log.end("completed", trained.steps, trained.tokens_seen)
    listed = job.log.listed()
    result = IrftResult(
        run_id=job.run_id,
        adapter=adapter,
        merged=merged,
        steps=trained.steps,
        **totals(listed),
        eval_loss_before=trained.eval_loss_before,
        eval_loss_after=trained.eval_loss_after,
        loss_curve=trained.loss_curve,
        invocations=listed,
    )
    notes = result.model_dump(mode="json", exclude={"run_id", "finished_earlier"}) | hardware
    job.log.write({"notes": notes})
    db.finish_run(job.run_id, "completed", notes)
    return result


def _finished_notes(stored: dict[str, Any], store: Path) -> dict[str, Any] | None:
    """The notes of a finished run, from its run file; None while it is not finished.

    A run file written before invocations were recorded has neither: its run is finished
    when its store row says completed.
    """
    if "notes" in stored:
        return dict(stored["notes"])
    if "invocations" in stored or not store.is_file():
        return None
    with Store(store, readonly=True) as db:
        run = db.get_run(str(stored["run_id"]))
    return dict(run.notes) if run.status == "completed" else None


def _finished(stored: dict[str, Any], notes: dict[str, Any], store: Path) -> IrftResult:
    """A finished run, unchanged; its store row is set right if a kill came before it."""
    with Store(store) as db:
        run = db.get_run(str(stored["run_id"]))
        if run.status != "completed" or run.notes != notes:
            db.finish_run(run.id, "completed", notes)
    fields = {key: value for key, value in notes.items() if key in IrftResult.model_fields}
    return IrftResult.model_validate(fields | {"run_id": run.id, "finished_earlier": True})


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
    db: Store,
    config: IrftConfig,
    stored: dict[str, Any] | None,
    meta: dict[str, JsonValue],
    progress: TrainingProgress,
) -> tuple[RunRecord, float | None, Checkpoint | None, InvocationLog]:
    """A new run (and its run file), or the stored one claimed and tidied for this process.

    A stored run without a complete checkpoint (stopped or killed before its first one was
    saved) trains again from step 0, in place; `progress` hears of it.

    Returns the record, its eval loss before, the checkpoint to go on from (None: step 0),
    and this invocation's entry in the run file.
    """
    folder = config.output
    if stored is None:
        record = db.create_run(TASK, config.model, config.model_dump(mode="json") | meta)
        content = {"run_id": record.id, "config": config.model_dump(mode="json")}
        write_run_file(folder, content | meta | {"store": str(db.path)})
        return record, None, None, InvocationLog(folder, [], None)
    record = db.reopen_run(str(stored["run_id"]))  # refused while another process holds it
    # A kill cut their writing short; the trainer would reuse their names.
    for path in incomplete_checkpoints(folder / "checkpoints"):
        shutil.rmtree(path, ignore_errors=True)
    start = last_checkpoint(folder / "checkpoints")
    earlier = close_dead(invocations(stored), start)
    if start is None:  # stopped before its first checkpoint was complete
        check_no_steps_kept(record.id, folder, earlier)
        progress.restart(record.id)
        return record, None, None, InvocationLog(folder, earlier, None)
    before = stored.get("eval_loss_before")
    return (
        record,
        before if isinstance(before, float) else None,
        start,
        InvocationLog(folder, earlier, start),
    )


def _train(config: IrftConfig, job: _Job, progress: TrainingProgress) -> _Trained:
    """Evaluate, train (from the job's checkpoint), evaluate, stage the adapter (and merged)."""
    on_checkpoint = job.log.checkpoint if job.log else None
    tracker = progress_callback(progress, on_checkpoint)
    trainer = build_trainer(config, job.base_folder, job.device, job.bf16, tracker)
    has_eval = trainer.eval_dataset is not None
    before = job.eval_loss_before
    if has_eval and job.start is None:
        before = _eval_loss(trainer)  # every rank evaluates: it is a collective step
        if job.log:
            update_run_file(config.output, {"eval_loss_before": before})
    if job.start is not None and job.start.step >= job.start.max_steps:
        restore_checkpoint(trainer, job.start.path)  # trained to the end, stopped before saving
    else:
        if job.log:
            job.log.start_clock()
        train_until_stopped(trainer, job.start.path if job.start else None)
    after = _eval_loss(trainer) if has_eval else None
    adapter = staging(config.output / "adapter")
    trainer.save_model(str(adapter))
    merged = staging(config.output / "merged") if config.merge else None
    if merged is not None and job.log:
        _save_merged(trainer, merged)
    return _Trained(
        steps=int(trainer.state.global_step),
        tokens_seen=int(trainer.state.num_input_tokens_seen or 0),
        eval_loss_before=before,
        eval_loss_after=after,
        loss_curve=loss_curve(trainer.state.log_history),
        adapter=adapter,
        merged=merged,
    )


def _eval_loss(trainer: Any) -> float:
    return round(float(trainer.evaluate()["eval_loss"]), 4)


def _save_merged(trainer: Any, folder: Path) -> None:
    """Base weights with the adapter folded in: what a vLLM server or the hf backend loads."""
    merged = trainer.model.merge_and_unload()
    merged.save_pretrained(str(folder))
    trainer.processing_class.save_pretrained(str(folder))
