"""The price options of the commands that show tokens (runs show, reports), declared once.

What they mean, and how they combine into one price table, is `rulebench.report.prices`'s.
"""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from rulebench.cli.field_options import field_help, field_option
from rulebench.report.prices import PRICES_ENV, PriceOptions

if TYPE_CHECKING:
    from rulebench.core.pricing import Price, PriceTable
    from rulebench.engine.summary import GroupSummary

PricesOption = Annotated[
    Path | None,
    typer.Option(
        "--prices",
        envvar=PRICES_ENV,
        help=field_help(PriceOptions, "prices"),
        show_default=False,
    ),
]
PriceInOption = Annotated[
    float | None, field_option(PriceOptions, "price_in", "--price-in", shown=False)
]
PriceOutOption = Annotated[
    float | None, field_option(PriceOptions, "price_out", "--price-out", shown=False)
]


def price_table(
    prices: Path | None, price_in: float | None, price_out: float | None
) -> "PriceTable | None":
    """The prices the options give; None when they give none (costs are then not shown)."""
    return PriceOptions(prices=prices, price_in=price_in, price_out=price_out).table()


def env_price_table() -> "PriceTable | None":
    """The price table $RULEBENCH_PRICES names, for a run's closing summary (a bad one warns)."""
    import os

    from rulebench.cli.console import err
    from rulebench.report.prices import prices_from_environment
    from rulebench.report.untrusted import safe_text

    table, problem = prices_from_environment(os.environ)
    if problem is not None:
        err.print(safe_text(problem, style="yellow"))
    return table


def print_usage(
    total: "GroupSummary", model: str, price: "Price | None", table: "PriceTable | None"
) -> None:
    """A run's tokens and cost under its summary table, and what the cost was computed at."""
    from rulebench.cli.console import err
    from rulebench.report.prices import cost_note
    from rulebench.report.tables import usage_line
    from rulebench.report.untrusted import safe_text

    err.print(safe_text(usage_line(total)), highlight=False)
    note = cost_note(model, price, table)
    if note is not None:
        err.print(safe_text(note, style="dim"))
