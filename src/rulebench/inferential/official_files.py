"""Read and check the files of the RuleBench release's data folders, exactly as released.

A dataset folder (`clutrr/`, `law/`, ...) holds `<split>_data.json`, a JSON list of records, and
`<split>_rule.json`, normally a JSON object of rule id -> {"NL": str, "FOL": str}. Those two names
are the only data: the folders also hold rule indexes, pre-filter question sets and a `backup/`
folder, which we never open. Every error names the file (relative to the data root), the record
(its 0-based index in the JSON list, as `jq '.[17]'` counts) and the field.
"""

import logging
from abc import abstractmethod
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from rulebench.core.errors import DataError
from rulebench.core.json_text import parse_json_text
from rulebench.core.rules import Rule
from rulebench.core.text import surrogate_warning

logger = logging.getLogger(__name__)

CORE_FIELDS = frozenset({"instruction", "input", "output", "rule"})
"""Fields every record has; the rest are dataset extras, kept as sample metadata."""

_warned_repeats: set[str] = set()


class OfficialRecord(BaseModel):
    """The fields every official record has, typed as released (strict: no coercion).

    Extra fields are allowed and kept: they differ per dataset and analyses group by them.
    """

    model_config = ConfigDict(frozen=True, extra="allow", strict=True)

    instruction: str
    """Often ""; law lists all charges here, law-cf asks its question here."""
    input: str
    output: str

    @property
    @abstractmethod
    def rule_id(self) -> str:
        """The golden rule's id as a key of the rule file (rule files key ids by strings)."""


class IntRuleRecord(OfficialRecord):
    """A record whose `rule` is a one-element list of int (clutrr, clutrr-cf, deer)."""

    rule: Annotated[list[int], Field(min_length=1, max_length=1)]

    @property
    def rule_id(self) -> str:
        """The golden rule's id as a key of the rule file."""
        return str(self.rule[0])


class StrRuleRecord(OfficialRecord):
    """A record whose `rule` is a one-element list of str (theoremQA, ulogic, law)."""

    rule: Annotated[list[str], Field(min_length=1, max_length=1)]

    @property
    def rule_id(self) -> str:
        """The golden rule's id as a key of the rule file."""
        return self.rule[0]


RecordT = TypeVar("RecordT", bound=OfficialRecord)


class _RuleEntry(BaseModel):
    """One value of a rule file; ulogic-cf entries have NL only."""

    model_config = ConfigDict(frozen=True, extra="allow", strict=True)

    NL: str
    FOL: str | None = None


def file_label(root: Path, path: Path) -> str:
    """The path as messages show it: relative to the data root, e.g. "clutrr/test_data.json"."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def splits_present(folder: Path) -> tuple[str, ...]:
    """Splits that have a data file in a dataset folder, for "which ones exist" messages."""
    return tuple(sorted(p.name.removesuffix("_data.json") for p in folder.glob("*_data.json")))


def read_json(path: Path, label: str) -> JsonValue:
    """Parse a JSON file strictly (see core.json_text); repeated object keys keep the last value.

    ulogic-cf's rule files repeat every key twice in their text; a plain parser hides that,
    so we count repeats through `object_pairs_hook` and warn once per file. Lone surrogates
    in strings are replaced by U+FFFD, with a warning naming the file.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"{label}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise DataError(f"{label}: cannot read: {exc.strerror}") from None
    repeated: list[str] = []

    def keep_last(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for key, value in pairs:
            if key in obj:
                repeated.append(key)
            obj[key] = value
        return obj

    value, surrogates = parse_json_text(text, label, object_pairs_hook=keep_last)
    if surrogates:
        logger.warning("%s: %s", label, surrogate_warning(surrogates, "the file"))
    if repeated and str(path) not in _warned_repeats:
        _warned_repeats.add(str(path))
        logger.warning(
            "%s: %d object keys appear more than once in the JSON text (first: %r); "
            "keeping the last value of each, as JSON parsers do",
            label,
            len(repeated),
            repeated[0],
        )
    return value


def read_rules(path: Path, label: str) -> dict[str, Rule] | None:
    """Read a rule file; None for an empty JSON list (law's train_rule.json is `[]`)."""
    value = read_json(path, label)
    if value == []:
        return None
    if not isinstance(value, dict):
        raise DataError(
            f'{label}: expected a JSON object of rule id -> {{"NL": ..., "FOL": ...}}, '
            f"got {_json_kind(value)}"
        )
    rules: dict[str, Rule] = {}
    for rule_id, entry in value.items():
        try:
            parsed = _RuleEntry.model_validate(entry)
        except ValidationError as exc:
            raise DataError(f"{label}: rule {rule_id}: {describe_error(exc)}") from None
        rules[rule_id] = Rule(id=rule_id, nl=parsed.NL, fol=parsed.FOL)
    return rules


def read_records(
    path: Path, label: str, model: type[RecordT]
) -> list[tuple[RecordT, dict[str, JsonValue]]]:
    """Read a data file: each record validated by `model`, paired with its raw JSON object."""
    value = read_json(path, label)
    if not isinstance(value, list):
        raise DataError(f"{label}: expected a JSON list of records, got {_json_kind(value)}")
    if not value:  # else a run of 0 items would "complete" and report nothing
        raise DataError(f"{label}: no records (an empty JSON list)")
    records: list[tuple[RecordT, dict[str, JsonValue]]] = []
    for index, raw in enumerate(value):
        if not isinstance(raw, dict):
            raise DataError(f"{label}: record {index}: expected an object, got {_json_kind(raw)}")
        try:
            records.append((model.model_validate(raw), raw))
        except ValidationError as exc:
            raise DataError(f"{label}: record {index}: {describe_error(exc)}") from None
    return records


def describe_error(exc: ValidationError) -> str:
    """The first validation problem as "field 'rule[0]': Input should be a valid integer"."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    field = _field_path(first["loc"])
    where = f"field '{field}': " if field else ""
    more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
    return f"{where}{first['msg']}{more}"


def _field_path(loc: tuple[int | str, ...]) -> str:
    if not loc:
        return ""
    path = str(loc[0])
    for part in loc[1:]:
        # String parts after the first name union branches, not fields: leave them out.
        if isinstance(part, int):
            path += f"[{part}]"
    return path


def _json_kind(value: object) -> str:
    kinds = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "a number"
    return kinds.get(type(value), type(value).__name__)
