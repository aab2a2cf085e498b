"""`rulebench train irft`: LoRA-tune an hf model on an IRFT data folder."""

import inspect
from typing import Annotated, Any

import typer

from rulebench.cli.console import err, out
from rulebench.cli.field_options import field_help, field_keyword
from rulebench.cli.option_stack import OptionBlock, with_options
from rulebench.cli.progress import StepBar
from rulebench.cli.study_options import STUDY_DEFAULTS, StudyOptions, study_options
from rulebench.cli.train_signals import irft_stopped_by_signal
from rulebench.core.field_defaults import shown_default
from rulebench.report.untrusted import safe_text
from rulebench.train.irft_config import IrftConfig
from rulebench.train.irft_options import NONE_MEANS, IrftOptions

FLAGS = {"output": ("--output", "-o"), "model": ("--model", "-m"), "limit": ("--limit", "-n")}
METAVARS = {"device": "<auto|cpu|cuda|mps>", "dtype": "<auto|float32|bfloat16>", "resume": "RUN"}
UNSHOWN = {"data", "output", "epochs", "merge", "resume"}
"""Options --help shows no default for: the folders, the flag, --resume, and --epochs (off)."""


def _option(name: str) -> inspect.Parameter:
    """The option filling `IrftOptions.name`: the help and default of the config field it fills.

    No bounds: the config refuses a value out of range with one line naming its field.
    """
    shown = (
        False
        if name in UNSHOWN
        else shown_default(IrftConfig, name, none=NONE_MEANS.get(name, "none"))
    )
    own = name not in IrftConfig.model_fields  # --resume's help is its own
    return field_keyword(
        IrftOptions, name, *FLAGS.get(name, ()), metavar=METAVARS.get(name), shown=shown,
        help=None if own else field_help(IrftConfig, name),
    )  # fmt: skip


OPTIONS = tuple(_option(name) for name in IrftOptions.model_fields)
PrecisionOption = Annotated[str | None, typer.Option(hidden=True)]  # --dtype, as once spelled


@with_options(given=OptionBlock(OPTIONS, dict), study=study_options())
def irft(
    given: dict[str, Any], precision: PrecisionOption = None, study: StudyOptions = STUDY_DEFAULTS
) -> None:
    """LoRA-tune an hf model on IRFT data (trl SFT, loss on the completion only).

    Saves the adapter in OUTPUT/adapter (and with --merge the merged model in
    OUTPUT/merged) and records the run in the store. A GPU is used when there is
    one (bf16 where supported).
    """
    from rulebench.cli.renamed_options import pick_renamed
    from rulebench.train import irft_notes
    from rulebench.train.irft import run_irft
    from rulebench.train.irft_options import prepare_irft

    dtype = pick_renamed(given.pop("dtype"), precision, new="--dtype", old="--precision")
    prepared = prepare_irft(IrftOptions(**given, dtype=dtype), study.store)
    config, store = prepared.config, prepared.store
    err.print(safe_text(irft_notes.settings_line(config)))
    progress = _TrainingBar()
    with irft_stopped_by_signal(config.output, store), progress:
        result = run_irft(config, resume=prepared.resume, store=store, progress=progress)
    if result.finished_earlier:
        err.print(safe_text(irft_notes.finished_earlier_line(result, config)))
    if study.as_json:
        out.print_json(result.model_dump_json())
        return
    for line in irft_notes.result_lines(result):
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
        from rulebench.train.irft_notes import restart_line

        err.print(safe_text(restart_line(run_id)), soft_wrap=True)
