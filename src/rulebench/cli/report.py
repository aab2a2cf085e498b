"""`rulebench report RUN...`: the analyses of stored runs, as Markdown with plots, JSON or HTML.

The report follows the runs' task (`report.by_task`); `report inferential|scenarios|judge`
build the same report for one task and refuse runs of another. Every report names, at its
top and on stderr, a run that did not complete or holds errors: its numbers cover only part
of the task.
"""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from rulebench.cli.console import err, out
from rulebench.cli.field_options import field_help, field_keyword
from rulebench.cli.option_stack import OptionBlock, keyword, with_options
from rulebench.cli.pricing import PriceInOption, PriceOutOption, PricesOption, price_table
from rulebench.report.kinds import DEFAULT_EXTRACT, ExtractMode
from rulebench.report.report_request import ReportRequest
from rulebench.report.untrusted import safe_text

if TYPE_CHECKING:
    from rulebench.report.build import BuiltReport
    from rulebench.report.kinds import ReportKind

DEFAULT_COMMAND = "auto"
"""The hidden command that `rulebench report RUN...` runs: the report the runs' task gets."""
SUBCOMMANDS = "COMMAND [ARGS]..."


class ReportContext(typer.Context):
    """`report`'s context: its --help shows the default command's arguments and options."""

    def get_help(self) -> str:
        """The group's help, listing the default command's parameters before the commands."""
        with _default_parameters(self.command):
            return super().get_help()


@contextmanager
def _default_parameters(group: object) -> Iterator[None]:
    """While the group's help is drawn: the default command's parameters stand as its own.

    Its usage then reads `{RUN}...` from the default command's argument, before the commands.
    """
    if not isinstance(group, TyperGroup):
        yield
        return
    params, metavar = group.params, group.subcommand_metavar
    group.params = group.commands[DEFAULT_COMMAND].params
    group.subcommand_metavar = f"| {SUBCOMMANDS}"
    try:
        yield
    finally:
        group.params, group.subcommand_metavar = params, metavar


class ReportGroup(TyperGroup):
    """`report` takes runs straight after it: a first word naming no command starts the runs.

    Its --help shows that default usage with its options, then the per-task commands.
    """

    context_class = ReportContext

    # Every context of this group is a ReportContext (context_class), a typer.Context.
    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:  # type: ignore[override]
        """The arguments, with the default command put first unless they name a command."""
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = [DEFAULT_COMMAND, *args]
        return super().parse_args(ctx, args)


class DefaultContext(typer.Context):
    """The default command's context: it reads as `rulebench report ...`, as it is typed.

    Its usage line and a usage error's hint (`Try 'rulebench report --help'`) name the
    group: the command's own name is never typed.
    """

    @property
    def command_path(self) -> str:
        """The group's path: `rulebench report`."""
        return self.parent.command_path if self.parent is not None else super().command_path

    def get_usage(self) -> str:
        """The group's usage, as a usage error shows it: runs, or a per-task command."""
        return self.parent.get_usage() if self.parent is not None else super().get_usage()


class DefaultCommand(TyperCommand):
    """The default command, under the group's name (`DefaultContext`)."""

    context_class = DefaultContext


app = typer.Typer(
    help="Build the report of stored runs; its kind follows their task (inferential, "
    "scenarios or judge). The commands below build one kind and refuse other runs.",
    no_args_is_help=True,
    cls=ReportGroup,
    subcommand_metavar=f"{{RUN}}... | {SUBCOMMANDS}",
)


def _request(values: dict[str, Any]) -> ReportRequest:
    """The shared options' values as one request, the prices read into one table."""
    table = price_table(values.pop("prices"), values.pop("price_in"), values.pop("price_out"))
    given = {name: value for name, value in values.items() if value is not None}
    return ReportRequest(**given, prices=table)


HtmlOption = typer.Option(
    "--html", help=field_help(ReportRequest, "html"), dir_okay=False, show_default=False
)
REPORT_OPTIONS = OptionBlock(
    (
        field_keyword(ReportRequest, "output", "--output", "-o", shown=False),
        field_keyword(ReportRequest, "store", "--store", shown=False),
        field_keyword(ReportRequest, "as_json", "--json", shown=False),
        keyword("html", Annotated[Path | None, HtmlOption], None),
        field_keyword(ReportRequest, "html_items", "--html-items", kind=int | None),
        keyword("prices", PricesOption, None),
        keyword("price_in", PriceInOption, None),
        keyword("price_out", PriceOutOption, None),
    ),
    _request,
)
"""The options every report takes, in --help's order after the command's own."""
ExtractOption = Annotated[
    ExtractMode | None,
    typer.Option(
        help="Inferential runs: re-score with this extraction mode (both are stored with "
        "every result).",
        show_default=DEFAULT_EXTRACT,
    ),
]
Runs = Annotated[
    list[str],
    typer.Argument(
        metavar="RUN",
        help="Runs (ids or unique prefixes) of one task; several are compared.",
        show_default=False,
    ),
]


@app.command(DEFAULT_COMMAND, hidden=True, cls=DefaultCommand)
@with_options(request=REPORT_OPTIONS)
def by_task(run_ids: Runs, extract: ExtractOption = None, *, request: ReportRequest) -> None:
    """The report that fits the runs' task: inferential, scenarios or judge.

    Inferential: the paper's tables, curves, trigger/execution split, dimensions.
    Scenarios: pass rates per suite and bucket, breakdowns, McNemar between runs.
    Judge (one run): accuracy, precision, recall and F1 per rule, with 95% CIs.
    """
    build_and_show(None, run_ids, extract, request)


@app.command()
@with_options(request=REPORT_OPTIONS)
def inferential(
    run_ids: Annotated[
        list[str],
        typer.Argument(
            metavar="RUN",
            help="Inferential runs (ids or unique prefixes); several give a comparison.",
        ),
    ],
    extract: ExtractOption = None,
    *,
    request: ReportRequest,
) -> None:
    """The paper's analyses of one run, or a comparison of several.

    Tables 1 and 2, the rule-quantity curve, CoT deltas, the trigger/execution
    split (runs with --cite-rule), the five capability dimensions with a radar
    chart (PNG and SVG), the SALAD long tail and the prompt-echo baseline
    (samples are rebuilt from each run's settings).
    """
    build_and_show("inferential", run_ids, extract, request)


@app.command()
@with_options(request=REPORT_OPTIONS)
def scenarios(
    run_ids: Annotated[
        list[str],
        typer.Argument(
            metavar="RUN",
            help="One or more scenarios runs; several are compared (McNemar on shared cases).",
        ),
    ],
    *,
    request: ReportRequest,
) -> None:
    """Pass rates per suite and bucket with the headline, and breakdowns.

    Breakdowns per scenario, behavior and strategy, the spread across repeats,
    and paired comparisons (McNemar) when several runs are given.
    """
    build_and_show("scenarios", run_ids, None, request)


@app.command("judge")
@with_options(request=REPORT_OPTIONS)
def judge_report(
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="A judge run.")],
    *,
    request: ReportRequest,
) -> None:
    """Accuracy, precision, recall and F1 of a judge run, overall and per rule, with 95% CIs.

    "Violation" is the positive class. Intervals: Wilson for accuracy, precision
    and recall; for F1, the Wilson interval of the Jaccard index
    J = TP/(TP+FP+FN) mapped through F1 = 2J/(1+J). Warns when the judge run or
    a source run did not complete or holds errors.
    """
    build_and_show("judge", [run_id], None, request)


def build_and_show(
    family: "ReportKind | None",
    run_ids: list[str],
    extract: ExtractMode | None,
    request: ReportRequest,
) -> None:
    """Build the report (`family`, else the one the runs' task gets), write and print it."""
    from rulebench.cli.renamed_options import warn_renamed
    from rulebench.engine.store.location import default_store_path
    from rulebench.engine.store.store_set import StoreSet
    from rulebench.report import report_request as requested

    with StoreSet.open(request.store or [default_store_path()]) as db:
        kind = requested.requested_kind(db, family, run_ids, extract)
        _, old_file = requested.report_destination(kind, request)
        if old_file is not None:
            warn_renamed(*requested.OLD_OUTPUT_FILE)
        built = requested.build_requested(db, kind, run_ids, extract, request)
    if old_file is not None:
        requested.write_report_file(built, old_file)
        err.print(safe_text(f"report written to {old_file}"))
    _show(built, request.as_json)
    for line in requested.written_lines(kind, built, request):
        err.print(safe_text(line))


def _show(built: "BuiltReport", as_json: bool) -> None:
    """Warnings on stderr (the report shows them at its top too), then Markdown or JSON."""
    for warning in built.warnings:
        err.print(safe_text(f"warning: {warning}", style="yellow"), highlight=False)
    if as_json:
        # allow_nan=False: numbers.py turns NaN into null; a NaN left over must fail loudly.
        out.print_json(json.dumps(built.numbers, allow_nan=False), ensure_ascii=True)
    elif built.markdown:
        from rulebench.cli.markdown_view import TerminalMarkdown

        out.print(TerminalMarkdown(built.markdown))
