"""`rulebench attack transfer`: suffixes tested on several models, each paired with its base."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from rulebench.cli import options as opt
from rulebench.cli.config_defaults import shown_default
from rulebench.cli.console import err, out
from rulebench.cli.option_stack import with_options
from rulebench.cli.study_options import (
    STUDY_DEFAULTS,
    StudyOptions,
    output_option,
    study_options,
)
from rulebench.scenarios.protocol import Protocol
from rulebench.study.transfer import TransferConfig

if TYPE_CHECKING:
    from rulebench.attack.suffixes import Suffix
    from rulebench.study.transfer import TransferResult


@with_options(
    study=study_options(
        output_option(
            "Folder for transfer.md and transfer.json.", shown_default(TransferConfig, "output")
        ),
        shown_default(TransferConfig, "concurrency"),
    )
)
def transfer(
    suffix: Annotated[
        list[str],
        typer.Option(
            "--suffix",
            metavar="FILE|RUN",
            help="Repeatable: a text file holding a suffix, or a `rulebench attack gcg` run.",
            show_default=False,
        ),
    ],
    model: Annotated[
        list[str] | None,
        typer.Option(
            "--model",
            "-m",
            help="Repeatable: a model to test, any backend (an OpenAI-compatible server: "
            "openai-api/<name>/<model> with <NAME>_BASE_URL). Default: the embedded model.",
            show_default=False,
        ),
    ] = None,
    model_arg: opt.ModelArgOption = None,
    suite: Annotated[
        list[str] | None,
        typer.Option(
            "--suite",
            "-s",
            help="Repeatable, as `run scenarios` takes it.",
            show_default=shown_default(TransferConfig, "suites"),
        ),
    ] = None,
    scenario: Annotated[
        list[str] | None,
        typer.Option(
            help="Only this scenario, repeatable. Default: the scenarios the suffixes attacked.",
            show_default=False,
        ),
    ] = None,
    per_group: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Cases per behavior of each generated suite.",
            show_default=shown_default(TransferConfig, "per_group"),
        ),
    ] = None,
    per_behavior: Annotated[int | None, typer.Option(min=1, hidden=True)] = None,
    full: Annotated[
        bool, typer.Option("--full", help="Every case of the suites (official sizes).")
    ] = False,
    suffix_on: Annotated[
        Literal["every", "first", "last"] | None,
        typer.Option(
            help="Which user messages of each case get the suffix (GCG used the first).",
            show_default=shown_default(TransferConfig, "suffix_on"),
        ),
    ] = None,
    placement: Annotated[
        Literal["user", "system"] | None,
        typer.Option(
            help="Instruction placement.", show_default=shown_default(Protocol, "placement")
        ),
    ] = None,
    no_reminders: Annotated[
        bool, typer.Option("--no-reminders", help="Drop the precedence reminders.")
    ] = False,
    max_tokens: opt.MaxTokensOption = None,
    study: StudyOptions = STUDY_DEFAULTS,
) -> None:
    """Test suffixes on several models: each model's pass rates without and with each suffix.

    Every model runs the scenarios once without a suffix and once per suffix
    (ordinary stored runs: cached, so a repeat is quick, and resumable). Each
    suffixed run is paired case by case with the same model's plain run: both pass
    rates, the change with a paired 95% interval, McNemar's exact test. Replies
    are judged against the cases as written.
    """
    from rulebench.attack.suffixes import load_suffix
    from rulebench.cli.execute import typed_config
    from rulebench.cli.renamed_options import pick_renamed
    from rulebench.cli.study_run import run_study_command
    from rulebench.models.registry import DEFAULT_MODEL
    from rulebench.report.untrusted import safe_text
    from rulebench.study.transfer import run_transfer, write_transfer_outputs

    count = pick_renamed(per_group, per_behavior, new="--per-group", old="--per-behavior")
    suffixes = [load_suffix(given, study.store) for given in suffix]
    models = model or [DEFAULT_MODEL]
    protocol = {"placement": placement, "reminders": False if no_reminders else None}
    given: dict[str, object] = {
        "suites": tuple(suite) if suite else None,
        "scenarios": tuple(scenario) if scenario else None,
        "per_group": count,
        "suffix_on": suffix_on,
        "protocol": Protocol(**{k: v for k, v in protocol.items() if v is not None}),
        "max_tokens": max_tokens,
        "concurrency": study.concurrency,
        "model_args": opt.parse_model_args(model_arg),
        "output": study.output,
    }
    values = {name: value for name, value in given.items() if value is not None}
    if full:
        values["per_group"] = None
    config = typed_config(TransferConfig, **values)
    err.print(safe_text(_plan_line(suffixes, models, config)), highlight=False)
    result = run_study_command(
        lambda db, reporter: run_transfer(config, suffixes, models, db, reporter),
        study.store,
        not study.as_json,
    )
    _show(result, write_transfer_outputs(result, config.output), study.as_json)


def _plan_line(suffixes: "list[Suffix]", models: list[str], config: TransferConfig) -> str:
    """What the transfer runs: the suffixes, models, scenarios, suites and protocol."""
    from rulebench.study.transfer import scenarios_of

    chosen = ", ".join(scenarios_of(suffixes, config)) or "all"
    cases = "all cases" if config.per_group is None else f"{config.per_group} per behavior"
    return (
        f"transfer: {len(suffixes)} suffix(es) on {', '.join(models)}; scenarios {chosen}; "
        f"suites {', '.join(config.suites)}, {cases}; suffix on {config.suffix_on} user "
        f"message(s); {config.protocol.label()}"
    )


def _show(result: "TransferResult", written: list[Path], as_json: bool) -> None:
    """The table (or JSON), the files written and any run left unfinished (exit 1)."""
    from rulebench.cli.render import print_comparison
    from rulebench.report.untrusted import safe_text

    if as_json:
        out.print_json(result.model_dump_json())
    else:
        print_comparison(result.rows, "GCG suffix transfer (pass rate %)", ("no suffix", "suffix"))
        out.print(safe_text("written: " + ", ".join(str(path) for path in written)))
    for run in result.runs:
        if run.status != "completed":
            err.print(safe_text(f"run {run.run_id} ({run.model}) is {run.status}"), style="yellow")
    if not result.complete:
        raise typer.Exit(1)
