"""The prices a front end was given, and what it says beside a cost.

Prices come from a table file (`--prices`, or the file $RULEBENCH_PRICES names) and may be
overridden by one price for every model (`--price-in`/`--price-out`). This module turns what
was given into one `PriceTable`, so the CLI, the API and the web app price alike; it imports
the report's loader only when a file is named (that loader brings the report's modules).
"""

from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from rulebench.core.errors import ConfigError
from rulebench.core.pricing import Price, PriceTable

PRICES_ENV = "RULEBENCH_PRICES"
"""The environment variable naming the price table used when none is given."""


class PriceOptions(BaseModel):
    """The prices asked for: a table file, and one price for every model (both or neither)."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    prices: Path | None = None
    """Price table (TOML or JSON) giving USD per million input and output tokens per model
    spec or glob, to show costs; default: $RULEBENCH_PRICES. Example entry:
    ["openai/gpt-4o-mini"] input = 0.15 output = 0.60"""
    price_in: float | None = Field(default=None, ge=0.0)
    """USD per million input tokens, for every model shown (overrides --prices);
    log-likelihood scoring tokens count as input."""
    price_out: float | None = Field(default=None, ge=0.0)
    """USD per million output tokens, for every model shown (with --price-in)."""

    def table(self) -> PriceTable | None:
        """The prices given, the file read now; None when none are given (no cost shown).

        Raises:
            ConfigError: one of --price-in and --price-out alone, or a table that cannot be
                read (naming the file and entry).
        """
        price_in, price_out = self.price_in, self.price_out
        if (price_in is None) != (price_out is None):
            raise ConfigError("--price-in and --price-out go together: give both (0 is a price)")
        table = _load(self.prices) if self.prices is not None else None
        if price_in is None or price_out is None:
            return table
        flags = Price(input=price_in, output=price_out)
        source = f"--price-in {price_in:g} --price-out {price_out:g}"
        base = table or PriceTable()
        return base.model_copy(update={"override": flags, "source": source})


def prices_from_environment(environ: Mapping[str, str]) -> tuple[PriceTable | None, str | None]:
    """The table $RULEBENCH_PRICES names (None without one), and why it could not be read.

    For a run's closing summary: a bad table is a warning there, not an error, since the run
    it would price is already stored.
    """
    path = environ.get(PRICES_ENV)
    if not path:
        return None, None
    try:
        return _load(Path(path)), None
    except ConfigError as exc:
        return None, f"costs not shown (${PRICES_ENV}): {exc}"


def price_json(price: Price, table: PriceTable | None) -> dict[str, JsonValue]:
    """The price a cost was computed at, for --json output."""
    return {"input": price.input, "output": price.output, "source": table.source if table else ""}


def cost_note(model: str, price: Price | None, table: PriceTable | None) -> str | None:
    """What a cost under a run's summary was computed at, or why none is shown (no table: None)."""
    if table is None:
        return None
    if price is None:
        return f"no price for {model} in {table.source}: cost not shown"
    return (
        f"cost at ${price.input:g} / ${price.output:g} per million input / output tokens "
        f"({table.source}); replies from the response cache cost nothing"
    )


def _load(path: Path) -> PriceTable:
    # Only now: report.usage brings the report's document and plot modules (start-up time).
    from rulebench.report.usage import load_prices

    return load_prices(path)
