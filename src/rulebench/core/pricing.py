"""What tokens cost: a user's price table per model, and the cost of a run's token counts.

Prices are the user's, never built in: they change, differ per provider and contract, and a
stale built-in figure would make a cost look citable when it is not. A table maps model specs
(or glob patterns over them) to US dollars per million input and output tokens:

    # prices.toml
    ["openai/gpt-4o-mini"]
    input = 0.15
    output = 0.60

    ["openai-api/vllm/*"]   # any model served by the vllm provider
    input = 0
    output = 0

Tokens of replies served from rulebench's response cache cost nothing (no request was sent),
and tokens read to score choices by log-likelihood are priced as input tokens.
"""

import fnmatch

from pydantic import BaseModel, ConfigDict, Field

from rulebench.core.errors import ConfigError
from rulebench.core.validation import validate_into

PER_TOKENS = 1_000_000
"""Prices are quoted per million tokens, as providers quote them."""


class Price(BaseModel):
    """US dollars per million tokens of one model."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    input: float = Field(ge=0)
    output: float = Field(ge=0)

    def cost_usd(self, input_tokens: int, output_tokens: int) -> float:
        """The cost of these token counts in US dollars."""
        return (input_tokens * self.input + output_tokens * self.output) / PER_TOKENS


class PriceTable(BaseModel):
    """Prices by model spec; a key may be a glob pattern ("openai-api/vllm/*")."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prices: dict[str, Price] = {}
    override: Price | None = None
    """One price for every model (--price-in/--price-out), over anything in `prices`."""
    source: str = ""
    """Where the prices came from (a file, the command line), to say so beside a cost."""

    def price_for(self, model: str) -> Price | None:
        """The model's price: the override, its exact spec, else the longest matching pattern."""
        if self.override is not None:
            return self.override
        if model in self.prices:
            return self.prices[model]
        matching = [key for key in self.prices if fnmatch.fnmatchcase(model, key)]
        return self.prices[max(matching, key=len)] if matching else None


def parse_prices(data: object, source: str) -> PriceTable:
    """A price table from a parsed TOML or JSON document; errors name `source` and the entry."""
    if not isinstance(data, dict):
        raise ConfigError(f"price table {source}: expected a table of models, not a list or value")
    prices = {}
    for model, entry in data.items():
        where = f"price table {source}: [{model}]"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: expected a table with input and output prices")
        prices[model] = validate_into(Price, entry, where)
    return PriceTable(prices=prices, source=source)
