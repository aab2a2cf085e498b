"""`rulebench train irft`: LoRA-tune an hf model on an IRFT data folder."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rulebench.cli.config_defaults import shown_default
from rulebench.cli.console import err, out
from rulebench.cli.option_stack import with_options
from rulebench.cli.progress import StepBar
from rulebench.cli.study_options import STUDY_DEFAULTS, StudyOptions, study_options
from rulebench.cli.train_signals import irft_stopped_by_signal
from rulebench.train.irft_config import DEFAULT_MAX_STEPS, IrftConfig

if TYPE_CHECKING:
    from rulebench.train.irft import IrftResult


def _irft_default(field: str, none: str = "none") -> str:
    return shown_default(IrftConfig, field, none=none)


@with_options(study=study_options())
def irft(
    ctx: typer.Context,
    data: Annotated[
        Path | None,
        typer.Option(help="A folder from `rulebench train data`.", show_default=False),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Folder for checkpoints, adapter, merged.", show_default=False
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "-m",
            help="hf/<folder, .gguf or cached hub id>.",
            show_default=_irft_default("model"),
        ),
    ] = None,
    rank: Annotated[
        int | None, typer.Option(help="LoRA rank.", show_default=_irft_default("rank"))
    ] = None,
    alpha: Annotated[
        int | None,
        typer.Option(
            help="LoRA alpha (scale = alpha / rank).", show_default=_irft_default("alpha")
        ),
    ] = None,
    layers: Annotated[
        int | None,
        typer.Option(
            help="Adapt only the last N transformer layers (faster backward).",
            show_default=_irft_default("layers", "all"),
        ),
    ] = None,
    learning_rate: Annotated[
        float | None,
        typer.Option(
            help="Peak learning rate (linear decay).",
            show_default=_irft_default("learning_rate"),
        ),
    ] = None,
    epochs: Annotated[
        float | None,
        typer.Option(help="Passes over the data (instead of --max-steps).", show_default=False),
    ] = None,
    max_steps: Annotated[
        int | None,
        typer.Option(help="Optimizer steps.", show_default=str(DEFAULT_MAX_STEPS)),
    ] = None,
    batch_size: Annotated[
        int | None,
        typer.Option(help="Examples per device step.", show_default=_irft_default("batch_size")),
    ] = None,
    grad_accum: Annotated[
        int | None,
        typer.Option(
            help="Steps accumulated per optimizer step.",
            show_default=_irft_default("grad_accum"),
        ),
    ] = None,
    max_length: Annotated[
        int | None,
        typer.Option(help="Token limit per example.", show_default=_irft_default("max_length")),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed of adapter init, data order, dropout.", show_default=_irft_default("seed")
        ),
    ] = None,
    save_steps: Annotated[
        int | None,
        typer.Option(help="A checkpoint every N steps.", show_default=_irft_default("save_steps")),
    ] = None,
    eval_size: Annotated[
        int | None,
        typer.Option(
            help="Test examples whose loss is measured before and after (0: off).",
            show_default=_irft_default("eval_size"),
        ),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            "-n",
            help="Train on the first N examples only.",
            show_default=_irft_default("limit", "all"),
        ),
    ] = None,
    merge: Annotated[
        bool, typer.Option("--merge", help="Also save merged weights (transformers folder).")
    ] = False,
    device: Annotated[
        str | None,
        typer.Option(
            metavar="<auto|cpu|cuda|mps>",
            help="Where to train.",
            show_default=_irft_default("device"),
        ),
    ] = None,
    dtype: Annotated[
        str | None,
        typer.Option(
            metavar="<auto|float32|bfloat16>",
            help="bfloat16 autocast or float32; auto: bfloat16 where the GPU or CPU has it.",
            show_default=_irft_default("dtype"),
        ),
    ] = None,
    precision: Annotated[str | None, typer.Option(hidden=True)] = None,
    resume: Annotated[
        str | None,
        typer.Option(
            metavar="RUN",
            help="Continue a stopped run (run id) from its last checkpoint (from step 0 when "
            "it has none yet); its options are the run's own (--merge, --device, --dtype may "
            "change).",
            show_default=False,
        ),
    ] = None,
    study: StudyOptions = STUDY_DEFAULTS,
) -> None:
    """LoRA-tune an hf model on IRFT data (trl SFT, loss on the completion only).

    Saves the adapter in OUTPUT/adapter (and with --merge the merged model in
    OUTPUT/merged) and records the run in the store. A GPU is used when there is
    one (bf16 where supported).
    """
    from rulebench.cli.renamed_options import pick_renamed
    from rulebench.core.errors import ConfigError
    from rulebench.core.validation import validate_into
    from rulebench.train.irft import run_irft
    from rulebench.train.irft_config import OLD_DTYPES
    from rulebench.train.irft_output import stored_config

    old = OLD_DTYPES.get(precision or "", precision)
    dtype = pick_renamed(dtype, old, new="--dtype", old="--precision")
    values = {name: value for name, value in ctx.params.items() if name in IrftConfig.model_fields}
    # Not given: None, or False for --merge (a 0 is given: --eval-size 0 turns eval off).
    given = {name: value for name, value in values.items() if value is not None}
    given = {name: value for name, value in given.items() if value is not False}
    given |= {"dtype": dtype} if dtype else {}
    store = study.store
    if resume is not None:
        if resume.startswith("-"):  # the old bare flag took the option after it as the id
            raise ConfigError(
                "train irft: --resume takes the run id now: rulebench train irft --resume RUN "
                "(the id is in OUTPUT/irft-run.json and `rulebench runs list`)"
            )
        config, store = stored_config(resume, store, given)
    elif data is None or output is None:
        raise ConfigError("train irft: give --data and --output (or --resume RUN)")
    else:
        config = validate_into(IrftConfig, given, "train irft")
    _print_settings(config)
    progress = _TrainingBar()
    with irft_stopped_by_signal(config.output, store), progress:
        result = run_irft(config, resume=resume is not None, store=store, progress=progress)
    if result.finished_earlier:
        _say_finished_earlier(result, config)
    if study.as_json:
        out.print_json(result.model_dump_json())
        return
    _print_result(result)


def _say_finished_earlier(result: "IrftResult", config: IrftConfig) -> None:
    from rulebench.report.untrusted import safe_text

    err.print(
        safe_text(
            f"run {result.run_id} in {config.output} finished earlier ({result.steps} steps): "
            "nothing to resume, nothing written"
        )
    )


def _print_settings(config: IrftConfig) -> None:
    """Every setting on stderr before the (long) run starts: what was defaulted is visible."""
    from rulebench.models.hf.loading import pick_device
    from rulebench.report.untrusted import safe_text
    from rulebench.train.trainer import use_bf16

    device = pick_device(config.device)
    precision = "bfloat16" if use_bf16(config.dtype, device) else "float32"
    steps, epochs = config.steps_or_epochs()
    length = f"{steps} steps" if steps > 0 else f"{epochs:g} epochs"
    err.print(
        safe_text(
            f"irft: {config.model} on {config.data}: LoRA rank {config.rank}, alpha "
            f"{config.alpha}, layers {config.layers or 'all'}, dropout {config.dropout:g}, "
            f"learning rate {config.learning_rate:g}, {length} of batch {config.batch_size} x "
            f"accum {config.grad_accum}, max length {config.max_length}, seed {config.seed}, "
            f"checkpoint every {config.save_steps} steps, eval loss on {config.eval_size} test "
            f"examples, {device} {precision}"
        )
    )


def _print_result(result: "IrftResult") -> None:
    from rulebench.report.untrusted import safe_text

    before, after = (
        "-" if loss is None else f"{loss:.4f}"
        for loss in (result.eval_loss_before, result.eval_loss_after)
    )
    lines = [
        f"run {result.run_id}: {result.steps} steps, {result.train_tokens:,} tokens in "
        f"{result.wall_s:,.0f} s ({result.tokens_per_s:,.1f} tokens/s)"
        + (f" in {len(result.invocations)} invocations" if len(result.invocations) > 1 else ""),
        f"eval loss (test examples): {before} -> {after}",
        f"adapter: {result.adapter}",
    ]
    if result.merged is not None:
        lines.append(f"merged model: {result.merged}")
    for line in lines:
        out.print(safe_text(line))


class _TrainingBar(StepBar):
    """The trainer's progress (steps, loss, time left) as a rich bar on stderr."""

    def begin(self, total_steps: int, done_steps: int) -> None:
        """Training starts: show the step count (a resumed run starts part-way)."""
        self.start_steps("training", total_steps, done_steps)

    def update(self, step: int, loss: float | None) -> None:
        """Move to `step`, showing the latest loss."""
        self.show(step, loss)

    def restart(self, run_id: str) -> None:
        """Say that the resumed run starts over (it was stopped before its first checkpoint)."""
        from rulebench.report.untrusted import safe_text

        err.print(
            safe_text(f"run {run_id} has no checkpoint yet: training it again from step 0"),
            soft_wrap=True,
        )
