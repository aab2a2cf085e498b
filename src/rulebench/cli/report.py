"""`rulebench report RUN...`: the analyses of stored runs, as Markdown with plots, JSON or HTML.

The report follows the runs' task (`report.by_task`); `report inferential|scenarios|judge`
build the same report for one task and refuse runs of another. Every report names, at its
top and on stderr, a run that did not complete or holds errors: its numbers cover only part
of the task.
"""

import functools
import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

import typer
from typer import _click
from typer._click.exceptions import UsageError
from typer.core import TyperCommand, TyperGroup

from rulebench.cli.console import err, out
from rulebench.cli.pricing import PriceInOption, PriceOutOption, PricesOption, price_table
from rulebench.report.kinds import DEFAULT_EXTRACT, DEFAULT_FOLDER, HTML_ITEMS, ExtractMode
from rulebench.report.untrusted import safe_text

if TYPE_CHECKING:
    from rulebench.core.pricing import PriceTable
    from rulebench.engine.store.store_set import StoreSet
    from rulebench.report.build import BuiltReport
    from rulebench.report.kinds import ReportKind

DEFAULT_COMMAND = "auto"
"""The hidden command that `rulebench report RUN...` runs: the report the runs' task gets."""


class ReportGroup(TyperGroup):
    """`report` takes runs straight after it: a first word naming no command starts the runs.

    Its --help shows that default usage with its options, then the per-task commands.
    """

    _showing_help = False

    def parse_args(self, ctx: _click.Context, args: list[str]) -> list[str]:
        """The arguments, with the default command put first unless they name a command."""
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = [DEFAULT_COMMAND, *args]
        return super().parse_args(ctx, args)

    def collect_usage_pieces(self, ctx: _click.Context) -> list[str]:
        """`[OPTIONS] {RUN}... | COMMAND [ARGS]...`: runs first, or a per-task command."""
        return [self.options_metavar or "", "{RUN}...", "|", "COMMAND", "[ARGS]..."]

    def format_help(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
        """The group's help, listing the default command's arguments and options."""
        self._showing_help = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._showing_help = False

    def get_params(self, ctx: _click.Context) -> list[_click.Parameter]:
        """The group's own options, except while --help draws the default command's."""
        if self._showing_help:
            return self.commands[DEFAULT_COMMAND].get_params(ctx)
        return super().get_params(ctx)


class DefaultCommand(TyperCommand):
    """The default command: its usage reads `rulebench report ...`, as it is typed."""

    def parse_args(self, ctx: _click.Context, args: list[str]) -> list[str]:
        """Parse; a usage error points to `rulebench report --help`, not the hidden name."""
        try:
            return super().parse_args(ctx, args)
        except UsageError as exc:
            exc.ctx = ctx.parent or exc.ctx
            raise

    def format_usage(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
        """The usage line under the group's name (the command's own name is never typed)."""
        path = ctx.parent.command_path if ctx.parent is not None else ctx.command_path
        formatter.write_usage(path, " ".join(self.collect_usage_pieces(ctx)))


app = typer.Typer(
    help="Build the report of stored runs; its kind follows their task (inferential, "
    "scenarios or judge). The commands below build one kind and refuse other runs.",
    no_args_is_help=True,
    cls=ReportGroup,
)


class ReportRequest(NamedTuple):
    """The options every report takes (declared once in `report_options`)."""

    output: Path | None
    store: list[Path] | None
    """The stores given (--store, repeatable); None: the default store."""
    as_json: bool
    html: Path | None
    html_items: int
    prices: "PriceTable | None"


OutputOption = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        help=f"Folder for report.md (inferential runs: and the plots; without -o they go to "
        f"{DEFAULT_FOLDER}/ unless --json; other runs' reports are only printed).",
        show_default=False,
    ),
]
JsonReportOption = Annotated[
    bool,
    typer.Option(
        "--json",
        help="Print the tables' numbers as JSON to stdout instead of the Markdown "
        "(files are written only with --output or --html).",
    ),
]
HtmlOption = Annotated[
    Path | None,
    typer.Option(
        "--html",
        help="Also write the report as one self-contained HTML file (tables, charts, run "
        "configurations with secrets redacted, and each run's items).",
        dir_okay=False,
        show_default=False,
    ),
]
HtmlItemsOption = Annotated[
    int,
    typer.Option(
        "--html-items",
        min=0,
        help="Items per run in the HTML file's appendix (the first ones; it says how many "
        "more the run has).",
    ),
]
StoresOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--store",
        help="Results store (SQLite file); repeat it to report runs of several stores, each "
        "read where it is; a folder stands for the *.sqlite files in it. Default: "
        "$RULEBENCH_STORE, else rulebench.sqlite in ./rulebench-results/.",
        show_default=False,
    ),
]
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


def _shared_parameters() -> list[inspect.Parameter]:
    """The options every report takes, as keyword parameters in --help's order."""
    annotated: list[tuple[str, object, object]] = [
        ("output", OutputOption, None),
        ("store", StoresOption, None),
        ("as_json", JsonReportOption, False),
        ("html", HtmlOption, None),
        ("html_items", HtmlItemsOption, HTML_ITEMS),
        ("prices", PricesOption, None),
        ("price_in", PriceInOption, None),
        ("price_out", PriceOutOption, None),
    ]
    return [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
        for name, kind, default in annotated
    ]


Command = Callable[..., None]


def report_options(command: Command) -> Command:
    """Give a report command the shared options; they arrive packed as `request`."""
    signature = inspect.signature(command)
    own = [p for p in signature.parameters.values() if p.name != "request"]
    combined = signature.replace(parameters=[*own, *_shared_parameters()])

    @functools.wraps(command)
    def with_shared(*args: Any, **kwargs: Any) -> None:
        bound = combined.bind(*args, **kwargs)
        bound.apply_defaults()
        given = dict(bound.arguments)
        table = price_table(given.pop("prices"), given.pop("price_in"), given.pop("price_out"))
        shared = {name: given.pop(name) for name in ReportRequest._fields if name in given}
        command(**given, request=ReportRequest(**shared, prices=table))

    # typer reads the options from the signature: the command's own, then the shared ones.
    with_shared.__signature__ = combined  # type: ignore[attr-defined]  # read by inspect
    return with_shared


@app.command(DEFAULT_COMMAND, hidden=True, cls=DefaultCommand)
@report_options
def by_task(run_ids: Runs, extract: ExtractOption = None, *, request: ReportRequest) -> None:
    """The report that fits the runs' task: inferential, scenarios or judge.

    Inferential: the paper's tables, curves, trigger/execution split, dimensions.
    Scenarios: pass rates per suite and bucket, breakdowns, McNemar between runs.
    Judge (one run): accuracy, precision, recall and F1 per rule, with 95% CIs.
    """
    build_and_show(None, run_ids, extract, request)


@app.command()
@report_options
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
@report_options
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
@report_options
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
    from rulebench.core.errors import ConfigError
    from rulebench.engine.store.location import default_store_path
    from rulebench.engine.store.store_set import StoreSet
    from rulebench.report.by_task import ReportOptions, build_kind, report_kind

    with StoreSet.open(request.store or [default_store_path()]) as db:
        kind = family or report_kind(db, run_ids)
        if extract is not None and kind != "inferential":
            raise ConfigError(f"--extract applies to inferential runs only; these are {kind} runs")
        folder, old_file = _output(kind, request)
        options = ReportOptions(
            folder, extract or DEFAULT_EXTRACT, request.html is not None, request.prices
        )
        built = build_kind(db, kind, run_ids, options)
        _write_html(db, built, request.html, request.html_items)
    if old_file is not None:
        _write_file(built, old_file)
    _show(built, request.as_json)
    if built.path is not None:
        beside = " (plots beside it)" if kind == "inferential" else ""
        err.print(safe_text(f"report written to {built.path}{beside}"))
    if request.html is not None:
        err.print(safe_text(f"HTML report written to {request.html}"))


def _output(kind: "ReportKind", request: ReportRequest) -> tuple[Path | None, Path | None]:
    """The folder the report goes to, and the file an old-style `-o FILE.md` names.

    Until this release `-o` named a file for scenarios and judge reports; such a path still
    gets that file, with the one deprecation line.
    """
    from rulebench.cli.renamed_options import warn_renamed
    from rulebench.core.errors import ConfigError

    output = request.output
    if output is None:
        is_default = kind == "inferential" and not request.as_json
        return (DEFAULT_FOLDER if is_default else None), None
    if output.suffix == ".md" and kind != "inferential":
        warn_renamed("-o FILE.md", "-o FOLDER (report.md is written inside)")
        return None, output
    if output.exists() and not output.is_dir():
        raise ConfigError(f"-o {output}: a file is there; -o names the report's folder")
    return output, None


def _write_file(built: "BuiltReport", path: Path) -> None:
    """The Markdown to the file an old-style `-o FILE.md` names."""
    from rulebench.core.errors import ConfigError

    try:
        path.write_text(built.markdown, encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"-o {path}: cannot write the file: {exc.strerror}") from None
    err.print(safe_text(f"report written to {path}"))


def _write_html(
    db: "StoreSet", built: "BuiltReport", path: Path | None, items_per_run: int
) -> None:
    """Write the HTML page (its folder is made); a path that cannot be written is one line."""
    if path is None:
        return
    from rulebench.core.errors import ConfigError
    from rulebench.report.build import html_report

    page = html_report(db, built, items_per_run)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # backslashreplace: a lone surrogate in an old config must not lose the whole page.
        path.write_text(page, encoding="utf-8", errors="backslashreplace")
    except OSError as exc:
        raise ConfigError(f"--html {path}: cannot write the file: {exc.strerror}") from None


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
