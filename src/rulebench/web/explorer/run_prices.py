"""Prices for the runs list's cost column: the table $RULEBENCH_PRICES names, as the CLI reads.

The same variable `--prices` defaults to, read with the report's loader; a table that cannot
be read leaves the costs out and says why on the page, rather than failing the list.
"""

import os
from pathlib import Path
from typing import NamedTuple

from rulebench.core.errors import RulebenchError
from rulebench.core.pricing import PriceTable
from rulebench.report.prices import PRICES_ENV


class RunPrices(NamedTuple):
    """The price table (None without one), where it came from, and why it could not be read."""

    table: PriceTable | None
    source: str | None
    problem: str | None

    @classmethod
    def from_environment(cls, show_paths: bool = True) -> "RunPrices":
        """The table $RULEBENCH_PRICES names, read now (it is small, and may have changed).

        `show_paths` False (a server others reach) names the table by its file name only.
        """
        from rulebench.report.usage import load_prices

        named = os.environ.get(PRICES_ENV)
        if not named:
            return cls(None, None, None)
        path = Path(named)
        try:
            return cls(load_prices(path), path.name, None)
        except RulebenchError as exc:
            problem = str(exc) if show_paths else str(exc).replace(str(path), path.name)
            return cls(None, path.name, f"costs left out: {problem}")
