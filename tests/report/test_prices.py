"""`report.prices`: the prices a front end was given, as one table, and the note beside a cost."""

from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.core.pricing import Price
from rulebench.report.prices import (
    PRICES_ENV,
    PriceOptions,
    cost_note,
    price_json,
    prices_from_environment,
)


@pytest.fixture
def table_file(tmp_path: Path) -> Path:
    path = tmp_path / "prices.toml"
    path.write_text('["scripted/*"]\ninput = 2\noutput = 4\n')
    return path


def test_no_prices_given_is_no_table() -> None:
    assert PriceOptions().table() is None


def test_a_table_file_prices_its_models(table_file: Path) -> None:
    table = PriceOptions(prices=table_file).table()
    assert table is not None and table.source == str(table_file)
    assert table.price_for("scripted/echo") == Price(input=2, output=4)
    assert table.price_for("openai/gpt-4o") is None


def test_one_price_for_every_model_overrides_the_file(table_file: Path) -> None:
    table = PriceOptions(prices=table_file, price_in=0.5, price_out=0).table()
    assert table is not None
    assert table.price_for("openai/gpt-4o") == Price(input=0.5, output=0)
    assert table.source == "--price-in 0.5 --price-out 0"
    assert table.prices  # the file's entries are kept under the override


@pytest.mark.parametrize("alone", [{"price_in": 1.0}, {"price_out": 1.0}])
def test_one_of_the_two_prices_alone_is_refused(alone: dict[str, float]) -> None:
    with pytest.raises(ConfigError, match="go together"):
        PriceOptions.model_validate(alone).table()


def test_the_environments_table_is_read_and_a_bad_one_is_a_warning(
    table_file: Path, tmp_path: Path
) -> None:
    table, problem = prices_from_environment({PRICES_ENV: str(table_file)})
    assert table is not None and problem is None
    assert prices_from_environment({}) == (None, None)
    broken = tmp_path / "broken.toml"
    broken.write_text("[not toml")
    table, problem = prices_from_environment({PRICES_ENV: str(broken)})
    assert table is None and problem is not None
    assert problem.startswith(f"costs not shown (${PRICES_ENV}): ") and "broken.toml" in problem


def test_the_cost_note_says_what_the_cost_was_computed_at(table_file: Path) -> None:
    table = PriceOptions(prices=table_file).table()
    price = Price(input=2, output=4)
    note = cost_note("scripted/echo", price, table)
    assert note is not None and "$2 / $4 per million" in note and str(table_file) in note
    assert cost_note("openai/x", None, table) == (
        f"no price for openai/x in {table_file}: cost not shown"
    )
    assert cost_note("scripted/echo", price, None) is None
    assert price_json(price, table) == {"input": 2, "output": 4, "source": str(table_file)}
    assert price_json(price, None)["source"] == ""
