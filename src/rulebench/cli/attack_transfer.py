"""`rulebench attack transfer`: suffixes tested on several models, each paired with its base."""

import inspect
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from pydantic import BaseModel

from rulebench.attack.attack_notes import written_line
from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.cli.field_options import field_bounds, field_keyword
from rulebench.cli.option_stack import OptionBlock, keyword, with_options
from rulebench.cli.study_options import STUDY_DEFAULTS, StudyOptions, output_option, study_options
from rulebench.core.field_defaults import shown_default
from rulebench.engine.run_flags import parse_model_args
from rulebench.report.untrusted import safe_text
from rulebench.scenarios.protocol import Protocol
from rulebench.study.transfer import TransferConfig
from rulebench.study.transfer_options import TransferOptions

if TYPE_CHECKING:
    from rulebench.study.transfer import TransferResult


def _option(
    field: str, *flags: str, default_of: type[BaseModel] | None = None, **spelling: Any
) -> inspect.Parameter:
    """The option filling `TransferOptions.field`; --help shows `default_of`'s default, if any.

    `spelling`: `kind`, the type typer parses where it is not the field's, and `metavar`.
    """
    shown = shown_default(default_of, field) if default_of else False
    return field_keyword(TransferOptions, field, *flags, shown=shown, **spelling)


OPTIONS = (
    _option("suffixes", "--suffix", kind=list[str], metavar="FILE|RUN"),
    _option("models", "--model", "-m", kind=list[str] | None),
    keyword("model_arg", opt.ModelArgOption, None),
    _option("suites", "--suite", "-s", default_of=TransferConfig, kind=list[str] | None),
    _option("scenarios", "--scenario", kind=list[str] | None),
    _option("per_group", "--per-group", default_of=TransferConfig),
    keyword(
        "per_behavior",
        Annotated[
            int | None, typer.Option(hidden=True, **field_bounds(TransferOptions, "per_group"))
        ],
        None,
    ),
    _option("full", "--full"),
    _option("suffix_on", "--suffix-on", default_of=TransferConfig),
    _option("placement", "--placement", default_of=Protocol),
    _option("no_reminders", "--no-reminders"),
    keyword("max_tokens", opt.MaxTokensOption, None),
)
"""The command's own options in --help order; each but -M and the old --per-behavior fills
the `TransferOptions` field of its name."""


@with_options(
    given=OptionBlock(OPTIONS, lambda values: opt.given_only(**values)),
    study=study_options(
        output_option(
            "Folder for transfer.md and transfer.json.", shown_default(TransferConfig, "output")
        ),
        shown_default(TransferConfig, "concurrency"),
    ),
)
def transfer(given: dict[str, Any], study: StudyOptions = STUDY_DEFAULTS) -> None:
    """Test suffixes on several models: each model's pass rates without and with each suffix.

    Every model runs the scenarios once without a suffix and once per suffix
    (ordinary stored runs: cached, so a repeat is quick, and resumable). Each
    suffixed run is paired case by case with the same model's plain run: both pass
    rates, the change with a paired 95% interval, McNemar's exact test. Replies
    are judged against the cases as written.
    """
    from rulebench.cli.renamed_options import pick_renamed
    from rulebench.cli.study_run import run_study_command
    from rulebench.study.transfer import write_transfer_outputs
    from rulebench.study.transfer_options import prepare_transfer

    count = pick_renamed(
        given.pop("per_group", None), given.pop("per_behavior", None),
        new="--per-group", old="--per-behavior",
    )  # fmt: skip
    model_args = parse_model_args(given.pop("model_arg", None))
    options = TransferOptions(
        **given, per_group=count, model_args=model_args, concurrency=study.concurrency,
        output=study.output,
    )  # fmt: skip
    prepared = prepare_transfer(options, study.store)
    err.print(safe_text(prepared.plan_line), highlight=False)
    result = run_study_command(prepared.run, study.store, not study.as_json)
    _show(result, write_transfer_outputs(result, prepared.config.output), study.as_json)


def _show(result: "TransferResult", written: list[Path], as_json: bool) -> None:
    """The table (or JSON), the files written and any run left unfinished (exit 1)."""
    from rulebench.cli.render import print_comparison
    from rulebench.study.transfer_options import unfinished_runs

    if as_json:
        out.print_json(result.model_dump_json())
    else:
        print_comparison(result.rows, "GCG suffix transfer (pass rate %)", ("no suffix", "suffix"))
        out.print(safe_text(written_line(written)))
    for line in unfinished_runs(result):
        err.print(safe_text(line), style="yellow")
    if not result.complete:
        raise typer.Exit(1)
