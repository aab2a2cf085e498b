"""`rulebench report`: the analyses of stored runs, as Markdown with PNG/SVG plots, JSON or HTML.

Every report names, at its top and on stderr, a run that did not complete or holds errors:
its numbers cover only part of the task.
"""

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.cli.pricing import PriceInOption, PriceOutOption, PricesOption, price_table
from rulebench.report.untrusted import safe_text

if TYPE_CHECKING:
    from rulebench.engine.store import Store
    from rulebench.report.build import BuiltReport

app = typer.Typer(help="Build reports from stored runs.", no_args_is_help=True)
DEFAULT_INFERENTIAL_OUTPUT = Path("rulebench-report")
DEFAULT_HTML_ITEMS = 200
"""Items per run in an HTML report: enough to read examples, few enough for a light page."""
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


@app.command()
def inferential(
    run_ids: Annotated[
        list[str],
        typer.Argument(
            help="One or more inferential runs (ids or unique prefixes); several give a comparison."
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help=f"Folder for report.md and the plots (default: {DEFAULT_INFERENTIAL_OUTPUT}; "
            "with --json: none).",
            show_default=False,
        ),
    ] = None,
    extract: Annotated[
        Literal["paper", "robust"],
        typer.Option(
            help="Re-score with this extraction mode (both are stored with every result)."
        ),
    ] = "robust",
    store: opt.StoreOption = None,
    as_json: JsonReportOption = False,
    html: HtmlOption = None,
    html_items: HtmlItemsOption = DEFAULT_HTML_ITEMS,
    prices: PricesOption = None,
    price_in: PriceInOption = None,
    price_out: PriceOutOption = None,
) -> None:
    """The paper's analyses of one run, or a comparison of several.

    Tables 1 and 2, the rule-quantity curve, CoT deltas, the trigger/execution split (runs with
    --cite-rule), the five capability dimensions with a radar chart (PNG and SVG), the SALAD
    long tail and the prompt-echo baseline (samples are rebuilt from each run's settings).
    """
    from rulebench.engine.store import Store
    from rulebench.report.build import inferential_report

    folder = output if output is not None or as_json else DEFAULT_INFERENTIAL_OUTPUT
    with Store(store, readonly=True) as db:
        table = price_table(prices, price_in, price_out)
        built = inferential_report(
            db, run_ids, extract, folder, render=html is not None, prices=table
        )
        _write_html(db, built, html, html_items)
    _show(built, as_json)
    if built.path is not None:
        err.print(safe_text(f"report written to {built.path} (plots beside it)"))
    _say_html(html)


@app.command()
def scenarios(
    run_ids: Annotated[
        list[str],
        typer.Argument(
            help="One or more scenarios runs; several are compared (McNemar on shared cases)."
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Also write the Markdown to this file.", show_default=False
        ),
    ] = None,
    store: opt.StoreOption = None,
    as_json: JsonReportOption = False,
    html: HtmlOption = None,
    html_items: HtmlItemsOption = DEFAULT_HTML_ITEMS,
    prices: PricesOption = None,
    price_in: PriceInOption = None,
    price_out: PriceOutOption = None,
) -> None:
    """Pass rates per suite and bucket with the headline, and breakdowns.

    Breakdowns per scenario, behavior and strategy, the spread across repeats, and paired
    comparisons (McNemar) when several runs are given.
    """
    from rulebench.engine.store import Store
    from rulebench.report.build import scenarios_report

    with Store(store, readonly=True) as db:
        built = scenarios_report(db, run_ids, price_table(prices, price_in, price_out))
        _write_html(db, built, html, html_items)
    _write(built, output)
    _show(built, as_json)
    _say_html(html)


@app.command("judge")
def judge_report(
    run_id: Annotated[str, typer.Argument(help="A judge run.")],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Also write the Markdown to this file.", show_default=False
        ),
    ] = None,
    store: opt.StoreOption = None,
    as_json: JsonReportOption = False,
    html: HtmlOption = None,
    html_items: HtmlItemsOption = DEFAULT_HTML_ITEMS,
    prices: PricesOption = None,
    price_in: PriceInOption = None,
    price_out: PriceOutOption = None,
) -> None:
    """Accuracy, precision, recall and F1 of a judge run, overall and per rule, with 95% CIs.

    "Violation" is the positive class. Intervals: Wilson for accuracy, precision and recall;
    for F1, the Wilson interval of the Jaccard index J = TP/(TP+FP+FN) mapped through
    F1 = 2J/(1+J). Warns when the judge run or a source run did not complete or holds errors.
    """
    from rulebench.engine.store import Store
    from rulebench.report.build import judge_report as build_judge_report

    with Store(store, readonly=True) as db:
        built = build_judge_report(db, run_id, price_table(prices, price_in, price_out))
        _write_html(db, built, html, html_items)
    _write(built, output)
    _show(built, as_json)
    _say_html(html)


def _write(built: "BuiltReport", output: Path | None) -> None:
    if output is not None:
        output.write_text(built.markdown, encoding="utf-8")
        err.print(safe_text(f"report written to {output}"))


def _write_html(db: "Store", built: "BuiltReport", path: Path | None, items_per_run: int) -> None:
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


def _say_html(path: Path | None) -> None:
    if path is not None:
        err.print(safe_text(f"HTML report written to {path}"))


def _show(built: "BuiltReport", as_json: bool) -> None:
    """Warnings on stderr (the report shows them at its top too), then Markdown or JSON."""
    for warning in built.warnings:
        err.print(safe_text(f"warning: {warning}", style="yellow"), highlight=False)
    if as_json:
        # allow_nan=False: numbers.py turns NaN into null; a NaN left over must fail loudly.
        out.print_json(json.dumps(built.numbers, allow_nan=False), ensure_ascii=True)
    elif built.markdown:
        from rich.markdown import Markdown

        out.print(Markdown(built.markdown))
