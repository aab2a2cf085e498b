r"""Strict JSON for data files: one parser, so every loader rejects the same bad input alike.

Python's json module accepts what JSON does not (NaN, Infinity), turns `1e400` into inf,
raises RecursionError on deep nesting and decodes the escape "\ud83d" to a str that UTF-8
cannot encode. Each of these surfaces far from the file (a crash in the store writer, a
non-finite parameter in a prompt), so data files are parsed here and fail with a DataError
naming the file, line and column. Lone surrogates are repaired, not rejected: cut emoji are
common in scraped text and the rest of the record is good; the count goes back to the caller
to warn about (core does no logging).
"""

import json
import math
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from pydantic import JsonValue

from rulebench.core.errors import DataError
from rulebench.core.text import count_lone_surrogates, repair_surrogates

PairsHook = Callable[[list[tuple[str, Any]]], Any]

# Tokens that can hold a non-finite number, strings first so that digits inside them are
# skipped: used only to locate an offending number once parsing has failed.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?Infinity|NaN|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')
# A \u escape of a surrogate; without one (and without a raw surrogate) nothing needs repair.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# The largest finite float, sys.float_info.max (core reads no process state, so no sys).
_LARGEST_FLOAT = math.nextafter(math.inf, 0.0)


class ParsedJson(NamedTuple):
    """A parsed JSON text and how many lone surrogates in its strings were replaced."""

    value: JsonValue
    surrogates: int
    """Lone UTF-16 surrogates replaced by U+FFFD in keys and values (0 for clean text)."""


class _NonFinite(Exception):
    """Raised from the parser's hooks: a number JSON cannot mean (NaN, inf, an overflow)."""

    def __init__(self, token: str, why: str) -> None:
        super().__init__(token)
        self.token = token
        self.why = why


def parse_json_text(
    text: str, where: str, object_pairs_hook: PairsHook | None = None
) -> ParsedJson:
    """Parse JSON strictly, naming `where` (e.g. "clutrr/test_data.json" or "x.jsonl:17").

    Raises:
        DataError: invalid JSON, NaN/Infinity, a number that overflows a float, or nesting
            too deep for the parser; the message gives the line (for multi-line text) and
            column.
    """
    try:
        value = json.loads(
            text,
            object_pairs_hook=object_pairs_hook,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            parse_int=_finite_int,
        )
    except json.JSONDecodeError as exc:
        position = _position(text, exc.pos)
        raise DataError(f"{where}: invalid JSON at {position}: {exc.msg}") from None
    except _NonFinite as exc:
        offset = _locate(text, exc.token)
        at = f" at {_position(text, offset)}" if offset >= 0 else ""
        raise DataError(f"{where}: {exc.token}{at} {exc.why}") from None
    except RecursionError:
        raise DataError(f"{where}: JSON nested too deeply to read") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise DataError(f"{where}: invalid JSON: {exc}") from None
    if not _SURROGATE_ESCAPE.search(text) and not count_lone_surrogates(text):
        return ParsedJson(value, 0)
    counter = [0]
    try:
        repaired = _repair(value, counter)
    except RecursionError:
        raise DataError(f"{where}: JSON nested too deeply to read") from None
    return ParsedJson(repaired, counter[0])


def _reject_constant(token: str) -> float:
    raise _NonFinite(token, "is not a JSON number (NaN and infinities are not allowed)")


def _finite_float(token: str) -> float:
    value = float(token)
    if value in (float("inf"), float("-inf")):
        raise _NonFinite(token, "is too large for a number (it overflows to infinity)")
    return value


def _finite_int(token: str) -> int:
    value = int(token)
    if abs(value) > _LARGEST_FLOAT:  # would become inf wherever it is used as a float
        raise _NonFinite(token, "is too large for a number (it overflows to infinity)")
    return value


def _locate(text: str, token: str) -> int:
    """The offset of the first `token` outside a string, or -1 if not found."""
    for match in _TOKEN.finditer(text):
        if match.group() == token:
            return match.start()
    return -1


def _position(text: str, offset: int) -> str:
    """Where `offset` is: a column for one-line text (its caller names the line), else both."""
    column = offset - text.rfind("\n", 0, offset)
    if "\n" not in text.rstrip("\n"):
        return f"column {column}"
    return f"line {text.count(chr(10), 0, offset) + 1}, column {column}"


def _repair(value: Any, counter: list[int]) -> Any:
    """`value` with lone surrogates replaced in every string; the count added to counter[0]."""
    if isinstance(value, str):
        text, count = repair_surrogates(value)
        counter[0] += count
        return text
    if isinstance(value, list):
        return [_repair(item, counter) for item in value]
    if isinstance(value, dict):
        return {_repair(key, counter): _repair(item, counter) for key, item in value.items()}
    return value
