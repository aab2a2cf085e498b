"""What a front end says about a `train irft` run: its settings, its result, a run done earlier.

The command line prints these lines; the wording lives here so that every front end says the
same things about the same run.
"""

from pathlib import Path

from rulebench.models.hf.loading import pick_device
from rulebench.train.irft import IrftResult
from rulebench.train.irft_config import IrftConfig
from rulebench.train.irft_record import RUN_FILE, read_run_file
from rulebench.train.trainer import use_bf16


def settings_line(config: IrftConfig) -> str:
    """Every setting, said before the (long) run starts: what was defaulted is visible."""
    device = pick_device(config.device)
    precision = "bfloat16" if use_bf16(config.dtype, device) else "float32"
    steps, epochs = config.steps_or_epochs()
    length = f"{steps} steps" if steps > 0 else f"{epochs:g} epochs"
    return (
        f"irft: {config.model} on {config.data}: LoRA rank {config.rank}, alpha "
        f"{config.alpha}, layers {config.layers or 'all'}, dropout {config.dropout:g}, "
        f"learning rate {config.learning_rate:g}, {length} of batch {config.batch_size} x "
        f"accum {config.grad_accum}, max length {config.max_length}, seed {config.seed}, "
        f"checkpoint every {config.save_steps} steps, eval loss on {config.eval_size} test "
        f"examples, {device} {precision}"
    )


def finished_earlier_line(result: IrftResult, config: IrftConfig) -> str:
    """Said when `--resume` finds the run finished: nothing was trained or written."""
    return (
        f"run {result.run_id} in {config.output} finished earlier ({result.steps} steps): "
        "nothing to resume, nothing written"
    )


def restart_line(run_id: str) -> str:
    """Said when a resumed run starts over: it was stopped before its first checkpoint."""
    return f"run {run_id} has no checkpoint yet: training it again from step 0"


def result_lines(result: IrftResult) -> list[str]:
    """The run's steps, throughput, eval loss before and after, and where its weights are."""
    before, after = (
        "-" if loss is None else f"{loss:.4f}"
        for loss in (result.eval_loss_before, result.eval_loss_after)
    )
    invocations = len(result.invocations)
    lines = [
        f"run {result.run_id}: {result.steps} steps, {result.train_tokens:,} tokens in "
        f"{result.wall_s:,.0f} s ({result.tokens_per_s:,.1f} tokens/s)"
        + (f" in {invocations} invocations" if invocations > 1 else ""),
        f"eval loss (test examples): {before} -> {after}",
        f"adapter: {result.adapter}",
    ]
    if result.merged is not None:
        lines.append(f"merged model: {result.merged}")
    return lines


def stopped_note(output: Path) -> str:
    """What a stopped run keeps: its checkpoints, its run file only, or nothing."""
    if any((output / "checkpoints").glob("checkpoint-*")):
        return f"The run is stored as interrupted; its checkpoints are in {output}."
    if (output / RUN_FILE).is_file():
        return "No checkpoint was saved yet: a resume trains the run again from step 0."
    return f"Nothing was saved in {output}: run the same command again."


def stopped_run_id(output: Path) -> str | None:
    """The id of the run a stopped `train irft` began in `output` (None: none began)."""
    if not (output / RUN_FILE).is_file():
        return None
    return str(read_run_file(output)["run_id"])
