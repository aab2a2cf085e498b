"""The strict JSON parser of data files: every bad input is a DataError naming where it is."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulebench.core.errors import DataError
from rulebench.core.json_text import parse_json_text


def test_valid_json_parses_with_nothing_repaired() -> None:
    assert parse_json_text('{"a": [1, 2.5, "x", null, true]}', "f.json") == (
        {"a": [1, 2.5, "x", None, True]},
        0,
    )


def test_invalid_json_names_file_line_and_column() -> None:
    with pytest.raises(DataError, match=r"^f\.json: invalid JSON at line 2, column 7: "):
        parse_json_text('{"a": 1,\n "b": }', "f.json")


def test_invalid_json_on_one_line_gives_the_column_only() -> None:
    with pytest.raises(DataError, match=r"^x\.jsonl:17: invalid JSON at column 7: "):
        parse_json_text('{"a": }', "x.jsonl:17")


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_literals_are_rejected(literal: str) -> None:
    with pytest.raises(DataError, match=rf"^x\.jsonl:3: {literal} at column 20 is not a JSON"):
        parse_json_text(f'{{"secret": 1, "n": {literal}}}', "x.jsonl:3")


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1" + "0" * 400])
def test_numbers_that_overflow_to_infinity_are_rejected(number: str) -> None:
    text = '{\n  "note": "1e400 in a string is fine",\n  "n": ' + number + "\n}"
    with pytest.raises(DataError, match=r"^f\.json: .* at line 3, column 8 is too large"):
        parse_json_text(text, "f.json")


def test_a_huge_finite_number_is_kept() -> None:
    assert parse_json_text("[1e308]", "f.json").value == [1e308]


def test_too_deep_nesting_is_a_data_error_not_a_recursion_error() -> None:
    with pytest.raises(DataError, match=r"^f\.json: JSON nested too deeply"):
        parse_json_text("[" * 100_000 + "]" * 100_000, "f.json")


def test_too_many_digits_is_a_data_error() -> None:
    with pytest.raises(DataError, match=r"^f\.json: "):
        parse_json_text("1" * 5000, "f.json")


def test_lone_surrogates_are_repaired_in_keys_and_values_and_counted() -> None:
    text = r'{"k\ud83d": ["a\udc00b", {"x": "\ud83d"}], "pair": "\ud83d\ude00"}'
    value, count = parse_json_text(text, "f.json")
    assert count == 3
    assert value == {"k\ufffd": ["a\ufffdb", {"x": "\ufffd"}], "pair": "\U0001f600"}
    json.dumps(value, ensure_ascii=False).encode("utf-8")  # storable now


def test_object_pairs_hook_sees_every_pair() -> None:
    seen: list[str] = []

    def hook(pairs: list[tuple[str, object]]) -> dict[str, object]:
        seen.extend(key for key, _ in pairs)
        return dict(pairs)

    assert parse_json_text('{"a": 1, "a": 2}', "f.json", object_pairs_hook=hook).value == {"a": 2}
    assert seen == ["a", "a"]


@given(st.text(max_size=40))
def test_any_text_parses_or_is_a_data_error(text: str) -> None:
    try:
        value, _ = parse_json_text(text, "f.json")
    except DataError as exc:
        assert str(exc).startswith("f.json: ")
    else:
        json.dumps(value, allow_nan=False, ensure_ascii=False).encode("utf-8")
