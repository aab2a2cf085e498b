"""`rulebench train`: build IRFT data from the rule generators and tune a model on it."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.cli.progress import StepBar
from rulebench.cli.train_signals import data_stopped_by_signal, irft_stopped_by_signal
from rulebench.cli.train_star import star

if TYPE_CHECKING:
    from rulebench.train.irft import IrftResult
    from rulebench.train.irft_config import IrftConfig

app = typer.Typer(
    help="IRFT: rule-following data (StringGame, or in-domain) and LoRA tuning of hf models.",
    no_args_is_help=True,
)
app.command()(star)


@app.command()
def data(
    output: Annotated[
        Path,
        typer.Option("--output", "-o", help="Folder to write (new or empty).", show_default=False),
    ],
    size: Annotated[
        int | None,
        typer.Option(
            help="Training examples (default 2000); with --in-domain a cap on all examples "
            "(a seeded sample; default: all).",
            show_default=False,
        ),
    ] = None,
    test_size: Annotated[
        int | None,
        typer.Option(
            help="Examples per test split (in-distribution, held-out rules); default 200.",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of strings, noise rules, orders, held-out.")] = 0,
    form: Annotated[
        str, typer.Option(metavar="<nl|fol>", help="Rule form in the prompts: nl or fol.")
    ] = "nl",
    heldout_fraction: Annotated[
        float | None,
        typer.Option(
            help="Share of the rule library kept out of training (0 to 0.9); default 0.2.",
            show_default=False,
        ),
    ] = None,
    heldout_by: Annotated[
        str | None,
        typer.Option(
            metavar="<rules|composition>",
            help="How the held-out split is held out: rules (default; held-out rules may reuse "
            "training rules' conditions and outputs) or composition (their conditions and "
            "outputs occur in no training rule; rules mixing both are left out).",
            show_default=False,
        ),
    ] = None,
    in_domain: Annotated[
        bool,
        typer.Option(
            "--in-domain",
            help="Benchmark prompts (golden and few rules) from the kinship generator's train "
            "split and, with --data-root, official train files; test questions dropped.",
        ),
    ] = False,
    data_root: Annotated[
        Path | None,
        typer.Option(
            help="--in-domain: the release's data folder, <clone>/dataset (holds clutrr/, ...).",
            show_default=False,
        ),
    ] = None,
    dataset: Annotated[
        list[str] | None,
        typer.Option(
            "--dataset",
            help="--in-domain: official dataset to read, repeatable. Default: clutrr, ulogic, law.",
            show_default=False,
        ),
    ] = None,
    kinship_size: Annotated[
        int, typer.Option(help="--in-domain: generated kinship train samples (0: none).")
    ] = 1000,
    overwrite: opt.OverwriteDataOption = False,
    json_output: opt.JsonOption = False,
) -> None:
    """Write IRFT SFT data: StringGame splits, or with --in-domain the benchmark's own tasks.

    StringGame: each example lists one input string, its golden rule and 0-3 rules that do not
    apply, in a seeded order, with the target "Based on the j-th rule, the answer is X."; the
    oracle checks every example before writing. --in-domain (paper appendix H): each train
    sample gives a Golden Rule and a Few Rule example in the benchmark's zero-shot prompt,
    answered in the task's format; train samples whose question is asked in the evaluated
    test split are dropped and counted.
    """
    from rulebench.core.errors import ConfigError

    if in_domain:
        if test_size is not None or heldout_fraction is not None or heldout_by is not None:
            raise ConfigError(
                "train data: --test-size, --heldout-fraction and --heldout-by are StringGame "
                "options; "
                "in-domain data has a train split only"
            )
        options: dict[str, object] = {"size": size, "seed": seed, "form": form}
        root = data_root.resolve() if data_root else None  # as the manifest records it
        options |= {"kinship_size": kinship_size, "data_root": root}
        if dataset:
            options["datasets"] = tuple(dataset)
        _in_domain_data(output, options, overwrite, json_output)
        return
    if data_root is not None or dataset:
        raise ConfigError("train data: --data-root and --dataset need --in-domain")
    given = {
        "size": size,
        "test_size": test_size,
        "heldout_fraction": heldout_fraction,
        "heldout_by": heldout_by,
    }
    values: dict[str, object] = {"seed": seed, "form": form}
    values |= {key: value for key, value in given.items() if value is not None}  # else defaults
    _stringgame_data(output, values, overwrite, json_output)


def _stringgame_data(
    output: Path, values: dict[str, object], overwrite: bool, json_output: bool
) -> None:
    from rulebench.core.validation import validate_into
    from rulebench.report.untrusted import safe_text
    from rulebench.train.data import claim_folder, write_dataset
    from rulebench.train.examples import DataConfig

    config = validate_into(DataConfig, values, "train data")
    claim_folder(output, overwrite)  # refused before the bar is drawn
    splits = 2 if config.heldout_fraction > 0 else 1
    total = config.size + splits * config.test_size
    with data_stopped_by_signal(output), _bar("building examples", total) as advance:
        manifest = write_dataset(config, output, on_example=lambda _: advance())
    if json_output:
        out.print_json(data={"folder": str(output), **manifest.model_dump(mode="json")})
        return
    out.print(safe_text(f"IRFT data in {output}"))
    for split, count in manifest.counts.items():
        out.print(safe_text(f"  {split:8} {count:>7} examples"))
    out.print(
        safe_text(
            f"  rules: {len(manifest.train_rules)} for training, "
            f"{len(manifest.heldout_rules)} held out by {config.heldout_by}"
            + (f", {len(manifest.left_out_rules)} left out" if manifest.left_out_rules else "")
            + f"; data hash {manifest.data_hash[:16]}"
        )
    )


def _in_domain_data(
    output: Path, values: dict[str, object], overwrite: bool, json_output: bool
) -> None:
    from rulebench.core.validation import validate_into
    from rulebench.report.untrusted import safe_text
    from rulebench.train.data import claim_folder, write_in_domain
    from rulebench.train.in_domain import InDomainConfig, check_sources

    config = validate_into(InDomainConfig, values, "train data --in-domain")
    check_sources(config)  # a missing dataset folder is refused before the bar is drawn
    claim_folder(output, overwrite)
    with data_stopped_by_signal(output), _bar("building in-domain examples", None) as advance:
        manifest = write_in_domain(config, output, on_example=lambda _: advance())
    if json_output:
        out.print_json(data={"folder": str(output), **manifest.model_dump(mode="json")})
        return
    assert manifest.in_domain is not None  # write_in_domain always records it
    out.print(safe_text(f"IRFT in-domain data in {output}"))
    for source, count in manifest.in_domain.sources.items():
        out.print(
            safe_text(
                f"  {source:8} {count.examples:>7} examples; {count.dropped} of "
                f"{count.samples} train samples dropped as test overlap"
            )
        )
    total = manifest.counts["train"]
    out.print(safe_text(f"  train    {total:>7} examples; data hash {manifest.data_hash[:16]}"))


@app.command()
def irft(
    data: Annotated[
        Path, typer.Option(help="A folder from `rulebench train data`.", show_default=False)
    ],
    output: Annotated[
        Path,
        typer.Option(
            "--output", "-o", help="Folder for checkpoints, adapter, merged.", show_default=False
        ),
    ],
    model: Annotated[
        str, typer.Option("--model", "-m", help="hf/<folder, .gguf or cached hub id>.")
    ] = "hf/SmolLM2-135M-Instruct",
    rank: Annotated[int, typer.Option(help="LoRA rank.")] = 16,
    alpha: Annotated[int, typer.Option(help="LoRA alpha (scale = alpha / rank).")] = 32,
    layers: Annotated[
        int | None,
        typer.Option(
            help="Adapt only the last N transformer layers (faster backward). Default: all.",
            show_default=False,
        ),
    ] = None,
    learning_rate: Annotated[float, typer.Option(help="Peak learning rate (linear decay).")] = 1e-3,
    epochs: Annotated[
        float | None, typer.Option(help="Passes over the data (instead of --max-steps).")
    ] = None,
    max_steps: Annotated[
        int | None,
        typer.Option(
            help="Optimizer steps. Default: 60 (~15 min on 2 CPU cores).", show_default=False
        ),
    ] = None,
    batch_size: Annotated[int, typer.Option(help="Examples per device step.")] = 8,
    grad_accum: Annotated[int, typer.Option(help="Steps accumulated per optimizer step.")] = 1,
    max_length: Annotated[int, typer.Option(help="Token limit per example.")] = 512,
    seed: Annotated[int, typer.Option(help="Seed of adapter init, data order, dropout.")] = 0,
    save_steps: Annotated[int, typer.Option(help="A checkpoint every N steps.")] = 20,
    eval_size: Annotated[
        int, typer.Option(help="Test examples whose loss is measured before and after (0: off).")
    ] = 32,
    limit: Annotated[
        int | None, typer.Option(help="Train on the first N examples only.", show_default=False)
    ] = None,
    merge: Annotated[
        bool, typer.Option("--merge", help="Also save merged weights (transformers folder).")
    ] = False,
    device: Annotated[
        str, typer.Option(metavar="<auto|cpu|cuda|mps>", help="Where to train.")
    ] = "auto",
    precision: Annotated[
        str,
        typer.Option(
            metavar="<auto|fp32|bf16>",
            help="bf16 autocast or float32; auto: bf16 where the GPU or CPU has it.",
        ),
    ] = "auto",
    resume: Annotated[
        bool,
        typer.Option(
            "--resume", help="Continue the run in --output from its last checkpoint (same options)."
        ),
    ] = False,
    store: opt.StoreOption = None,
    json_output: opt.JsonOption = False,
) -> None:
    """LoRA-tune an hf model on IRFT data (trl SFT, loss on the completion only).

    Saves the adapter in OUTPUT/adapter (and with --merge the merged model in OUTPUT/merged)
    and records the run in the store. A GPU is used when there is one (bf16 where supported).
    """
    from rulebench.core.validation import validate_into
    from rulebench.train.irft import run_irft
    from rulebench.train.irft_config import IrftConfig

    values = {
        **{"data": data, "output": output, "model": model, "rank": rank, "alpha": alpha},
        "layers": layers,
        **{"learning_rate": learning_rate, "epochs": epochs, "max_steps": max_steps},
        **{"batch_size": batch_size, "grad_accum": grad_accum, "max_length": max_length},
        **{"seed": seed, "save_steps": save_steps, "eval_size": eval_size, "limit": limit},
        **{"merge": merge, "device": device, "precision": precision},
    }
    config = validate_into(IrftConfig, values, "train irft")
    _print_settings(config)
    progress = _TrainingBar()
    with irft_stopped_by_signal(config.output), progress:
        result = run_irft(config, resume=resume, store=store, progress=progress)
    if result.finished_earlier:
        from rulebench.report.untrusted import safe_text

        err.print(
            safe_text(
                f"run {result.run_id} in {config.output} finished earlier ({result.steps} "
                "steps): nothing to resume, nothing written"
            )
        )
    if json_output:
        out.print_json(result.model_dump_json())
        return
    _print_result(result)


def _print_settings(config: "IrftConfig") -> None:
    """Every setting on stderr before the (long) run starts: what was defaulted is visible."""
    from rulebench.models.hf.loading import pick_device
    from rulebench.report.untrusted import safe_text
    from rulebench.train.trainer import use_bf16

    device = pick_device(config.device)
    precision = "bf16" if use_bf16(config.precision, device) else "fp32"
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


@contextmanager
def _bar(description: str, total: int | None) -> Iterator[Callable[[], None]]:
    """A progress bar on stderr (None: total unknown); yields the function that advances it."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    columns = ("[bold]{task.description}", BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=False) as progress:
        task = progress.add_task(description, total=total)
        yield lambda: progress.advance(task)
