"""Load official RuLES test cases (JSONL, one case per line) into TestCases.

Reads upstream's per-behavior files (`<Scenario>_<behavior>.jsonl`; v1 manual files are
`<Scenario>.jsonl`) and the merged redistribution (one file per suite and bucket), deciding the
layout line by line. Every error names the file, the 1-based line and the field, because these
files are edited by hand and a bad line must be findable with `sed -n 17p`. Categories keep their
raw spelling ("Rule change" vs "Rule Change"): reports group them case-insensitively.

A multi-user message without a valid `<name>:` prefix is not an error here: the runner reports
it as a data error for that one case, as upstream's data holds a few such cases.
"""

import difflib
import logging
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import JsonValue, ValidationError

from rulebench.core.cases import TestCase
from rulebench.core.errors import DataError
from rulebench.core.items import ItemIds
from rulebench.core.json_text import parse_json_text
from rulebench.core.messages import Message
from rulebench.core.text import surrogate_warning
from rulebench.scenarios.base import Version
from rulebench.scenarios.played import COLLECTED_FIELD, PLAYED_FIELD, read_note, read_record
from rulebench.scenarios.registry import behaviors, scenario_class, scenario_names
from rulebench.scenarios.suites.official_records import (
    MERGED_MARKERS,
    ROLES,
    MergedRecord,
    PerFileRecord,
    RawMessage,
    describe_error,
    field_path,
    json_kind,
)

logger = logging.getLogger(__name__)

RecordT = TypeVar("RecordT", PerFileRecord, MergedRecord)

_warned: set[tuple[Path | None, str]] = set()
"""Warnings about a line already given: each is said once per process, not once per load
(a changed file is read again; `suites.read_once`)."""


@dataclass
class _Load:
    """State shared by the files of one load: ids stay unique across all of them."""

    version: Version
    ids: ItemIds = field(default_factory=ItemIds)
    explicit: Counter[str] = field(default_factory=Counter)
    first: dict[str, "_Where"] = field(default_factory=dict)
    """Where each explicit id was first seen, for the warning on its repeats."""


@dataclass(frozen=True)
class _Where:
    """A line of a file, for error messages: `redteam/Encryption.jsonl:17`."""

    label: str
    line: int
    path: Path | None = None
    """The file itself, telling apart files of one label (`redteam/Encryption.jsonl`)."""

    def __str__(self) -> str:
        return f"{self.label}:{self.line}"

    def error(self, what: str) -> DataError:
        return DataError(f"{self}: {what}")


def load_suite_file(
    path: Path, version: Version = "v3", suite: str | None = None
) -> list[TestCase]:
    """Read one JSONL file of test cases, in either layout.

    Args:
        path: a `<Scenario>_<behavior>.jsonl` file or a merged `<suite>_<bucket>.jsonl` file.
        version: the rule version the cases are evaluated under (v1 keeps old evaluators).
        suite: the suite name for per-file records; default the parent folder's name
            (upstream keeps `benign/`, `basic/`, `redteam/`). Merged records name their own.
    """
    return _read_file(path, suite or path.parent.name, _Load(version))


def load_suite_dir(
    folder: Path, suite: str | None = None, version: Version = "v3"
) -> list[TestCase]:
    """Read every `*.jsonl` file of a suite folder, or of each suite folder under a data root.

    Args:
        folder: a suite folder (`data/redteam`), a data root holding suite folders
            (`data/`, then `suite` picks one), or a folder of merged files.
        suite: only this suite: `folder/suite` when that folder exists, else the records whose
            suite is this name (merged files). None: everything found.
        version: as for `load_suite_file`.
    """
    if not folder.is_dir():
        raise DataError(f"{folder}: not a folder of .jsonl test-case files")
    if suite is not None and (folder / suite).is_dir():
        folder = folder / suite
    files = suite_files(folder)
    if not files:
        raise DataError(f"{folder}: no .jsonl files here or in its subfolders")
    load = _Load(version)
    cases = [case for path in files for case in _read_file(path, path.parent.name, load)]
    if suite is not None:
        cases = [case for case in cases if case.suite.lower() == suite.lower()]
        if not cases:
            raise DataError(f"{folder}: no test cases of suite '{suite}' in {len(files)} files")
    return cases


def suite_files(folder: Path) -> list[Path]:
    """The `*.jsonl` files a suite folder's cases come from: its own, else its subfolders'."""
    return sorted(folder.glob("*.jsonl")) or sorted(folder.glob("*/*.jsonl"))


def _read_file(path: Path, suite: str, load: _Load) -> list[TestCase]:
    label = f"{path.parent.name}/{path.name}" if path.parent.name else path.name
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(f"{label}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise DataError(f"{label}: cannot read: {exc.strerror}") from None
    cases = []
    # Split on "\n" only: JSON strings may hold raw U+2028 and other characters that
    # str.splitlines() would break a record on.
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            where = _Where(label, number, path.resolve())
            cases.append(_read_line(line, where, path.stem, suite, load))
    if not cases:  # else a run of 0 items would "complete" and report nothing
        raise DataError(f"{label}: no test cases (the file has no JSON lines)")
    return cases


def _read_line(line: str, where: _Where, stem: str, suite: str, load: _Load) -> TestCase:
    raw = _parse_json(line, where)
    if not isinstance(raw, dict):
        raise where.error(f"expected a JSON object, got {json_kind(raw)}")
    if MERGED_MARKERS & raw.keys():
        return _merged_case(raw, where, suite, load)
    return _per_file_case(raw, where, stem, suite, load)


def _per_file_case(
    raw: dict[str, JsonValue], where: _Where, stem: str, suite: str, load: _Load
) -> TestCase:
    record = _validate(PerFileRecord, raw, where)
    scenario = _check_scenario(stem.split("_", 1)[0], where, "file name", load.version)
    _check_behavior(stem, scenario, where, "file name", load.version)
    _check_params(scenario, record.params, where, "params")
    parts = _Parts(
        scenario=scenario,
        behavior=stem,
        category=record.category if record.category is not None else "default",
        suite=suite,
        params=record.params,
        messages=_messages(record.messages, where),
        metadata=_played(raw, where),
    )
    return _build(parts, record.id, where, load)


def _merged_case(raw: dict[str, JsonValue], where: _Where, suite: str, load: _Load) -> TestCase:
    record = _validate(MergedRecord, raw, where)
    scenario = _check_scenario(record.scenario, where, "field 'scenario'", load.version)
    _check_behavior(record.scenario_label, scenario, where, "field 'scenario_label'", load.version)
    params = _params_from_json(record.params_json, where)
    _check_params(scenario, params, where, "params_json")
    parts = _Parts(
        scenario=scenario,
        behavior=record.scenario_label,
        category=str(record.round) if record.round is not None else "default",
        suite=record.suite or suite,
        params=params,
        messages=_messages(record.messages, where),
        metadata={
            **({"bucket": record.bucket_category} if record.bucket_category else {}),
            **_played(raw, where),
        },
    )
    return _build(parts, record.id, where, load)


def _played(raw: dict[str, JsonValue], where: _Where) -> dict[str, JsonValue]:
    """How a saved case was played and collected (`scenarios.played`); none in released data."""
    kept: dict[str, JsonValue] = {}
    if PLAYED_FIELD in raw:
        kept[PLAYED_FIELD] = read_record(raw[PLAYED_FIELD], str(where)).model_dump(mode="json")
    if COLLECTED_FIELD in raw:
        kept[COLLECTED_FIELD] = read_note(raw[COLLECTED_FIELD], str(where)).model_dump(mode="json")
    return kept


@dataclass(frozen=True)
class _Parts:
    """A record's content in our terms, whichever layout it came in."""

    scenario: str
    behavior: str
    category: str
    suite: str
    params: dict[str, JsonValue]
    messages: tuple[Message, ...]
    metadata: Mapping[str, JsonValue] = field(default_factory=dict)


def _build(parts: _Parts, given_id: str | None, where: _Where, load: _Load) -> TestCase:
    content: JsonValue = {
        "suite": parts.suite,
        "behavior": parts.behavior,
        "category": parts.category,
        "params": parts.params,
        "messages": [m.model_dump() for m in parts.messages],
    }
    return TestCase(
        id=_unique_id(given_id, where, load) if given_id else load.ids(content),
        scenario=parts.scenario,
        behavior=parts.behavior,
        category=parts.category,
        suite=parts.suite,
        params=parts.params,
        messages=parts.messages,
        version=load.version,
        metadata={**parts.metadata, "source": f"{where.label}:{where.line}"},
    )


def _unique_id(given: str, where: _Where, load: _Load) -> str:
    """The file's id; a repeated one gets `#2`, `#3`... so results never overwrite each other."""
    load.explicit[given] += 1
    count = load.explicit[given]
    if count == 1:
        load.first[given] = where
        return given
    numbered = f"{given}#{count}"
    _warn_once(
        where, f"{where}: id {given!r} is already used at {load.first[given]}; runs as {numbered!r}"
    )
    return numbered


def _warn_once(where: _Where, message: str) -> None:
    """Log a warning about a line of a file, unless this process already gave it."""
    if (where.path, message) not in _warned:
        _warned.add((where.path, message))
        logger.warning("%s", message)


def _validate(model: type[RecordT], raw: dict[str, JsonValue], where: _Where) -> RecordT:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise where.error(describe_error(exc)) from None


def _messages(raw: list[RawMessage], where: _Where) -> tuple[Message, ...]:
    messages = []
    for index, message in enumerate(raw):
        role = ROLES.get(message.role.lower())
        if role is None:
            raise where.error(
                f"field 'messages[{index}].role': unknown role {message.role!r} "
                "(expected user, assistant or system, in any case)"
            )
        messages.append(Message(role=role, content=message.content))
    if not messages or messages[-1].role != "user":
        raise where.error("field 'messages': must end with a user turn (the turn to answer)")
    return tuple(messages)


def _params_from_json(text: str, where: _Where) -> dict[str, JsonValue]:
    params = _parse_json(text, where, "field 'params_json'")
    if not isinstance(params, dict):
        raise where.error(f"field 'params_json': expected a JSON object, got {json_kind(params)}")
    return params


def _parse_json(text: str, where: _Where, what: str = "") -> JsonValue:
    """Strict JSON (no NaN or infinities, which would reach scenario parameters), repaired."""
    label = f"{where}: {what}" if what else str(where)
    value, surrogates = parse_json_text(text, label)
    if surrogates:
        _warn_once(where, f"{label}: {surrogate_warning(surrogates, 'the line')}")
    return value


def _check_scenario(name: str, where: _Where, source: str, version: Version) -> str:
    known = scenario_names(version)
    if name in known:
        return name
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    raise where.error(
        f"{source}: unknown {version} scenario '{name}'.{hint} Known: {', '.join(known)}"
    )


def _check_params(
    scenario: str, params: dict[str, JsonValue], where: _Where, field_name: str
) -> None:
    """The params must fit the scenario's params model and what its prompt states.

    Checked at load, for official files and users' own alike, else the run fails on every such
    case or, worse, scores it against a rule the prompt contradicts.
    """
    params_type = scenario_class(scenario).params_type
    try:
        validated = params_type.model_validate(params)
    except ValidationError as exc:
        # A misspelled name shows up as one unknown and one missing field: the unknown one,
        # with its did-you-mean, is the more useful of the two to show.
        errors = sorted(exc.errors(include_url=False), key=lambda e: e["type"] != "extra_forbidden")
        first = errors[0]
        path = field_path((field_name, *first["loc"]))
        known = list(params_type.model_fields)
        if first["type"] == "extra_forbidden":
            close = difflib.get_close_matches(str(first["loc"][0]), known, n=1)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            names = ", ".join(known) or "none"
            problem = f"not a parameter of {scenario}.{hint} Known: {names}"
        else:
            problem = str(first["msg"])
        more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
        raise where.error(f"field '{path}': {problem}{more}") from None
    problems = validated.problems()
    if problems:
        found = problems[0]
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        raise where.error(f"field '{field_name}.{found.field}': {found.why}{more}")


def _check_behavior(name: str, scenario: str, where: _Where, source: str, version: Version) -> None:
    """v3 behaviors must be one of the 19 rules; v1 files keep their own names (22 rules)."""
    if name != scenario and not name.startswith(f"{scenario}_"):
        raise where.error(f"{source}: behavior '{name}' does not belong to scenario '{scenario}'")
    if version == "v1":
        return
    known = [b for b, (owner, _) in behaviors("v3").items() if owner == scenario]
    if name not in known:
        close = difflib.get_close_matches(name, known, n=1)
        hint = f" Did you mean '{close[0]}'?" if close else ""
        raise where.error(
            f"{source}: unknown v3 behavior '{name}'.{hint} "
            f"Known for {scenario}: {', '.join(known)}"
        )
