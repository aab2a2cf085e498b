"""Price tables: loading, which entry prices a model, and what tokens cost."""

from pathlib import Path

import pytest

from rulebench.core.errors import ConfigError
from rulebench.core.pricing import Price, PriceTable
from rulebench.report.usage import load_prices

TABLE = """
["openai/gpt-4o-mini"]
input = 0.15
output = 0.60

["openai-api/vllm/*"]
input = 0.02
output = 0.04

["openai-api/vllm/big-*"]
input = 1
output = 2
"""


def test_a_toml_table_prices_exact_specs_and_the_longest_matching_pattern(
    tmp_path: Path,
) -> None:
    path = tmp_path / "prices.toml"
    path.write_text(TABLE)
    table = load_prices(path)
    assert table.price_for("openai/gpt-4o-mini") == Price(input=0.15, output=0.60)
    assert table.price_for("openai-api/vllm/small") == Price(input=0.02, output=0.04)
    assert table.price_for("openai-api/vllm/big-70b") == Price(input=1, output=2)
    assert table.price_for("openai/gpt-4o") is None
    assert table.source == str(path)


def test_a_json_table_reads_the_same(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text('{"scripted/echo": {"input": 3, "output": 15}}')
    assert load_prices(path).price_for("scripted/echo") == Price(input=3, output=15)


def test_cost_is_per_million_tokens() -> None:
    price = Price(input=0.15, output=0.60)
    assert price.cost_usd(1_000_000, 0) == pytest.approx(0.15)
    assert price.cost_usd(2_000, 500) == pytest.approx((2_000 * 0.15 + 500 * 0.60) / 1e6)


def test_an_override_prices_every_model() -> None:
    flags = Price(input=1, output=1)
    table = PriceTable(prices={"a/b": Price(input=5, output=5)}, override=flags)
    assert table.price_for("a/b") == flags and table.price_for("c/d") == flags


@pytest.mark.parametrize(
    ("text", "suffix", "message"),
    [
        ('["m/x"]\ninput = 1\n', ".toml", r"\[m/x\]: output: Field required"),
        ('["m/x"]\ninput = -1\noutput = 1\n', ".toml", r"\[m/x\]: input: .*greater than"),
        ('["m/x"]\ninput = 1\noutput = 1\ncached = 2\n', ".toml", r"cached: Extra inputs"),
        ('["m/x"]\ninput = 1\noutput = "a lot"\n', ".toml", r"output: Input should be"),
        ("m = 3\n", ".toml", r"\[m\]: expected a table with input and output"),
        ('["m/x"]\ninput = \n', ".toml", r"not valid TOML: .*line 2"),
        ("[1, 2]", ".json", "expected a table of models"),
        ('{"m/x": {"input": NaN, "output": 1}}', ".json", r"input: .*finite"),
    ],
)
def test_a_bad_table_names_the_file_and_the_entry(
    tmp_path: Path, text: str, suffix: str, message: str
) -> None:
    path = tmp_path / f"prices{suffix}"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as caught:
        load_prices(path)
    assert str(path) in str(caught.value)


def test_a_missing_table_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read it"):
        load_prices(tmp_path / "nope.toml")
