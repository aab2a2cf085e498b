"""The playground's save folder: test cases appended, listed and read back, nothing outside it.

A case is written as `rulebench play --save` writes it (`scenarios.play.append_case`: the
official merged layout, one JSON line, which `rulebench run scenarios -s FILE` runs whatever
the file is called). The default file is the case's behavior, `<Scenario>_<rule>.jsonl`, as
upstream names its files. A file name is one plain name in the save folder: no separator, no
leading dot, no link followed. What is written is checked first as the loader would check
it, so a saved case always runs.
"""

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rulebench.core.cases import TestCase
from rulebench.core.errors import ConfigError, DataError, RulebenchError
from rulebench.report.redaction import redact_text
from rulebench.scenarios.play import append_case
from rulebench.scenarios.played import COLLECTED_FIELD, STRATEGIES, CollectedNote
from rulebench.scenarios.registry import behaviors, scenario_class
from rulebench.scenarios.suites.official import load_suite_file
from rulebench.web.playground.parsed_files import ParsedFiles

FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,94}\.jsonl")
MAX_FILE_BYTES = 4 * 1024 * 1024
"""A save folder file the playground appends to or reads; larger ones are left alone."""
MAX_CASE_CHARS = 200_000
MAX_CASE_MESSAGES = 200
MAX_FILES_LISTED = 100
"""Files one saved-cases page reads (each up to MAX_FILE_BYTES), in name order."""
DEFAULT_STRATEGY = "manual"
"""A saved case's category when no red-team strategy is picked (as `rulebench play --save`)."""

# Appends from two visitors' requests (worker threads) must not interleave their lines.
_append_lock = threading.Lock()
_parsed = ParsedFiles()


@dataclass(frozen=True)
class SavedFile:
    """A file of the save folder as the saved-cases page lists it."""

    name: str
    cases: tuple[TestCase, ...]
    problem: str | None = None
    """Why the file could not be read (it is listed, its cases are not)."""


def default_file_name(behavior: str) -> str:
    """Upstream's file name for a behavior's cases, e.g. `Authentication_provide.jsonl`."""
    return f"{behavior}.jsonl"


def checked_file(save_dir: Path, name: str) -> Path:
    """The save-folder path of a file name a visitor gave; ConfigError unless plainly inside.

    The name is checked before it meets the file system, so `../x`, `/etc/x`, `a/b` and
    `.hidden` never become a path; a link in the folder is refused rather than followed.
    """
    name = name.strip()
    if not FILE_NAME.fullmatch(name) or ".." in name:
        raise ConfigError(
            f"file name {name[:100]!r} is not allowed: use letters, digits, '_', '-' and '.', "
            "ending in .jsonl (one name in the save folder, no folders)"
        )
    path = save_dir / name
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise ConfigError(f"{name} in the save folder is not a plain file")
    return path


def check_case(case: TestCase) -> None:
    """Refuse a case the loader would refuse or that is too large (DataError saying why)."""
    scenario_type = scenario_class(case.scenario)
    owner = behaviors(case.version).get(case.behavior)
    if owner is None or owner[0] != case.scenario:
        raise DataError(f"behavior '{case.behavior}' is not a rule of {case.scenario}")
    scenario = scenario_type.from_params(case.params)  # the params model validates them
    if not case.messages or case.messages[-1].role != "user":
        raise DataError("a test case ends with a user turn (the turn to answer)")
    if len(case.messages) > MAX_CASE_MESSAGES:
        raise DataError(f"a saved case holds at most {MAX_CASE_MESSAGES} messages")
    if sum(len(m.content) for m in case.messages) > MAX_CASE_CHARS:
        raise DataError(f"a saved case holds at most {MAX_CASE_CHARS} characters of messages")
    for number, message in enumerate(case.messages, start=1):
        if message.role not in ("user", "assistant"):
            raise DataError(f"message {number}: role {message.role!r} (user or assistant only)")
        problem = scenario.check_user_message(message.content) if message.role == "user" else None
        if problem is not None:
            raise DataError(f"message {number}: {problem}")


def save_case(
    case: TestCase,
    save_dir: Path,
    name: str | None,
    allow: Callable[[bool], None] | None = None,
) -> Path:
    """Append a checked case to `name` (default: its behavior's file) in the save folder.

    `allow(creates_file)` runs just before the write and may refuse it (a visitor's quota).
    """
    check_case(case)
    path = checked_file(save_dir, name or default_file_name(case.behavior))
    with _append_lock:
        if path.exists() and path.stat().st_size > MAX_FILE_BYTES:
            raise ConfigError(
                f"{path.name} holds more than {MAX_FILE_BYTES // 2**20} MiB already: "
                "save to another file"
            )
        if allow is not None:  # last: a save refused for another reason uses no quota
            allow(not path.exists())
        save_dir.mkdir(parents=True, exist_ok=True)
        append_case(case, path)
    return path


def read_saved(path: Path) -> tuple[TestCase, ...]:
    """A save-folder file's cases, read as `run scenarios -s` reads them (v3, else v1).

    Parsed once per version of the file: the collected and saved pages read every file on
    each request, so a file unchanged since (same modification time and size) comes from
    `_parsed`, its cases or its problem alike.
    """
    stat = path.stat()
    if stat.st_size > MAX_FILE_BYTES:
        raise DataError(f"{path.name}: larger than {MAX_FILE_BYTES // 2**20} MiB, not read here")
    stamp = (stat.st_mtime_ns, stat.st_size)
    parsed = _parsed.get(path, stamp)
    if parsed is None:
        try:
            parsed = _parse(path)
        except DataError as exc:
            parsed = exc
        _parsed.put(path, stamp, parsed)
    if isinstance(parsed, DataError):
        raise DataError(str(parsed))
    return parsed


def _parse(path: Path) -> tuple[TestCase, ...]:
    try:
        return tuple(load_suite_file(path, "v3"))
    except DataError as v3_error:
        try:  # a v1-only scenario (Hodor) reads as v1, as `--version v1` runs it
            return tuple(load_suite_file(path, "v1"))
        except DataError:
            raise v3_error from None


def saved_names(save_dir: Path) -> list[str]:
    """The save folder's case file names, sorted (none if the folder is missing)."""
    if not save_dir.is_dir():
        return []
    return sorted(p.name for p in save_dir.glob("*.jsonl") if FILE_NAME.fullmatch(p.name))


def list_saved(save_dir: Path, start: int = 0, count: int = MAX_FILES_LISTED) -> list[SavedFile]:
    """The case files `start` to `start + count` of the save folder by name, with their cases."""
    listed = []
    for name in saved_names(save_dir)[start : start + count]:
        try:
            listed.append(SavedFile(name, read_saved(checked_file(save_dir, name))))
        except RulebenchError as exc:
            listed.append(SavedFile(name, (), str(exc)))
    return listed


def find_saved(save_dir: Path, name: str, case_id: str) -> TestCase:
    """One saved case by file name and id; ConfigError when either is not there."""
    path = checked_file(save_dir, name)
    if not path.is_file():
        raise ConfigError(f"no file {path.name} in the save folder")
    for case in read_saved(path):
        if case.id == case_id:
            return case
    raise ConfigError(f"{path.name} holds no test case with id {case_id[:100]!r}")


def user_turns(case: TestCase) -> int:
    """The model calls replaying `case` asks for: one per user turn."""
    return sum(message.role == "user" for message in case.messages)


def labelled(
    case: TestCase, strategy: str, notes: str, model: str, broke: bool | None = None
) -> TestCase:
    """The case with its red-team strategy (its category) and the collector's note.

    ConfigError for a strategy that is not one of the suites' (or "manual") or long notes.
    """
    strategy = strategy.strip() or DEFAULT_STRATEGY
    if strategy != DEFAULT_STRATEGY and strategy not in STRATEGIES:
        raise ConfigError(
            f"strategy {strategy[:100]!r} is not one of the red-team suites': "
            f"{', '.join(STRATEGIES)} (or {DEFAULT_STRATEGY})"
        )
    try:
        note = CollectedNote(model=redact_text(model), notes=notes.strip(), broke=broke)
    except ValueError as exc:
        raise ConfigError(f"notes: {exc}") from None
    metadata = {**case.metadata, COLLECTED_FIELD: note.model_dump(mode="json")}
    return case.model_copy(update={"category": strategy, "metadata": metadata})


def hide_paths(text: str, save_dir: Path) -> str:
    """`text` with the save folder's path (as given and absolute) cut to its bare name."""
    folders = {str(save_dir.resolve()), str(save_dir.absolute()), str(save_dir)}
    for folder in sorted(folders, key=len, reverse=True):
        if folder not in (".", ""):
            text = text.replace(folder + "/", "").replace(folder, save_dir.name or "save folder")
    return text
