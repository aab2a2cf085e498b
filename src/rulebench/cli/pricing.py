"""The price options of the commands that show tokens (runs show, reports), declared once."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rulebench.core.pricing import Price, PriceTable
    from rulebench.engine.summary import GroupSummary

PRICES_ENV = "RULEBENCH_PRICES"

PricesOption = Annotated[
    Path | None,
    typer.Option(
        "--prices",
        envvar=PRICES_ENV,
        help="Price table (TOML or JSON) giving USD per million input and output tokens per "
        "model spec or glob, to show costs; default: $RULEBENCH_PRICES. Example entry: "
        '["openai/gpt-4o-mini"] input = 0.15 output = 0.60',
        show_default=False,
    ),
]
PriceInOption = Annotated[
    float | None,
    typer.Option(
        "--price-in",
        min=0.0,
        help="USD per million input tokens, for every model shown (overrides --prices); "
        "log-likelihood scoring tokens count as input.",
        show_default=False,
    ),
]
PriceOutOption = Annotated[
    float | None,
    typer.Option(
        "--price-out",
        min=0.0,
        help="USD per million output tokens, for every model shown (with --price-in).",
        show_default=False,
    ),
]


def price_table(
    prices: Path | None, price_in: float | None, price_out: float | None
) -> "PriceTable | None":
    """The prices the options give; None when they give none (costs are then not shown)."""
    from rulebench.core.errors import ConfigError
    from rulebench.core.pricing import Price, PriceTable
    from rulebench.report.usage import load_prices

    if (price_in is None) != (price_out is None):
        raise ConfigError("--price-in and --price-out go together: give both (0 is a price)")
    table = load_prices(prices) if prices is not None else None
    if price_in is None or price_out is None:
        return table
    flags = Price(input=price_in, output=price_out)
    source = f"--price-in {price_in:g} --price-out {price_out:g}"
    base = table or PriceTable()
    return base.model_copy(update={"override": flags, "source": source})


def env_price_table() -> "PriceTable | None":
    """The price table $RULEBENCH_PRICES names, for a run's closing summary.

    A bad table is a warning there, not an error: the run it would price is already stored.
    """
    import os

    from rulebench.cli.console import err
    from rulebench.core.errors import ConfigError
    from rulebench.report.untrusted import safe_text

    path = os.environ.get(PRICES_ENV)
    if not path:
        return None
    # Only now: report.usage brings the report's document and plot modules (start-up time).
    from rulebench.report.usage import load_prices

    try:
        return load_prices(Path(path))
    except ConfigError as exc:
        err.print(safe_text(f"costs not shown (${PRICES_ENV}): {exc}", style="yellow"))
        return None


def price_json(price: "Price", table: "PriceTable | None") -> dict[str, object]:
    """The price a cost was computed at, for --json output."""
    return {"input": price.input, "output": price.output, "source": table.source if table else ""}


def print_usage(
    total: "GroupSummary", model: str, price: "Price | None", table: "PriceTable | None"
) -> None:
    """A run's tokens and cost under its summary table, and what the cost was computed at."""
    from rulebench.cli.console import err
    from rulebench.report.tables import usage_line
    from rulebench.report.untrusted import safe_text

    err.print(safe_text(usage_line(total)), highlight=False)
    if table is None:
        return
    if price is None:
        note = f"no price for {model} in {table.source}: cost not shown"
    else:
        note = (
            f"cost at ${price.input:g} / ${price.output:g} per million input / output tokens "
            f"({table.source}); replies from the response cache cost nothing"
        )
    err.print(safe_text(note, style="dim"))
