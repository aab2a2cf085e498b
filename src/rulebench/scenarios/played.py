"""How a saved case was played, so `run scenarios -s FILE` replays it exactly.

`rulebench play --save` and the playground's save write a `played` object beside each case
(reply limit, temperature and the protocol: placement, reminders, system message, evaluator
mode, wording and clone). A replay plays every recorded case with its own record, unless the
run was given a setting explicitly: that setting wins (`ScenarioConfig.overrides`). Cases
saved before the record existed play with the run's settings.
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from rulebench.core.cases import TestCase
from rulebench.core.errors import ConfigError, DataError
from rulebench.core.messages import GenerateConfig
from rulebench.core.validation import describe_problems
from rulebench.core.wording import UpstreamText
from rulebench.scenarios.protocol import Protocol

_Read = TypeVar("_Read", bound=BaseModel)

PLAYED_FIELD = "played"
"""The saved row's field (and the case's metadata key) holding the record."""

Setting = Literal[
    "max_tokens", "temperature", "placement", "reminders", "system_message", "mode", "prompts"
]
"""A setting a record holds, which an explicitly given run setting replaces."""
SETTINGS: tuple[Setting, ...] = get_args(Setting)
GENERATION: tuple[Setting, ...] = ("max_tokens", "temperature")
PROTOCOL_SETTINGS: tuple[Setting, ...] = tuple(name for name in SETTINGS if name not in GENERATION)


class PlayRecord(BaseModel):
    """The settings one saved case was played with."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_tokens: int = Field(ge=1)
    temperature: float = Field(default=0.0, ge=0.0)
    protocol: Protocol = Protocol()
    """Placement, reminders, system message, evaluator mode, wording and clone."""


def read_record(raw: JsonValue, where: str) -> PlayRecord:
    """A row's `played` object as a record; a malformed one is a DataError naming its field."""
    return _read_object(PlayRecord, raw, where, PLAYED_FIELD)


def _read_object(model: type[_Read], raw: JsonValue, where: str, field: str) -> _Read:
    """`raw` as `model`; anything malformed is a DataError naming the row and the field."""
    if not isinstance(raw, dict):
        raise DataError(f"{where}: field '{field}': expected an object")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise DataError(f"{where}: field '{field}': {describe_problems(exc)}") from None
    except ConfigError as exc:  # a model's own checks (a system message without its slot)
        raise DataError(f"{where}: field '{field}': {exc}") from None


def record_of(case: TestCase) -> PlayRecord | None:
    """The record a loaded case carries (checked when its file was read), or None."""
    raw = case.metadata.get(PLAYED_FIELD)
    return None if raw is None else PlayRecord.model_validate(raw)


def records(cases: Iterable[TestCase]) -> list[PlayRecord | None]:
    """Each case's record (None for a generated case or one saved without a record)."""
    return [record_of(case) for case in cases]


def uniform_record(found: Sequence[PlayRecord | None]) -> PlayRecord | None:
    """The one record every case shares, or None when a case has none or they differ."""
    if not found or any(record is None for record in found):
        return None
    first = found[0]
    return first if all(record == first for record in found) else None


def replayed_protocol(
    record: PlayRecord, given: Protocol, overrides: Sequence[str], clone: UpstreamText | None
) -> Protocol:
    """The protocol a recorded case replays with: its record, but given settings win.

    `clone` is where the recorded clone is now (`--upstream PATH`); it must hold the same text.
    """
    fields = record.protocol.model_dump()
    for name in PROTOCOL_SETTINGS:
        if name in overrides:
            fields[name] = getattr(given, name)
            if name == "prompts":
                fields["upstream"] = given.upstream
    if fields["prompts"] == "upstream" and "prompts" not in overrides and clone is not None:
        fields["upstream"] = _moved_clone(record.protocol.upstream, clone)
    try:
        return Protocol.model_validate(fields)
    except ValidationError as exc:
        raise ConfigError(f"replayed protocol: {describe_problems(exc)}") from None


def _moved_clone(recorded: UpstreamText | None, clone: UpstreamText) -> UpstreamText:
    """The clone at its new place, refused unless it holds the text the case was played in."""
    if recorded is not None and recorded.files_sha256 != clone.files_sha256:
        raise ConfigError(
            f"--upstream {clone.root}: its scenario files differ from those the saved case was "
            f"played with ({recorded.short()}): check out that revision, or give --prompts "
            "upstream to replay in this clone's text"
        )
    return clone


def replayed_generation(
    record: PlayRecord, run: GenerateConfig, overrides: Sequence[str]
) -> GenerateConfig:
    """The run's generation settings with the record's reply limit and temperature, unless given."""
    update: dict[str, object] = {
        name: getattr(record, name) for name in GENERATION if name not in overrides
    }
    return run.model_copy(update=update)


def overridden(found: Sequence[PlayRecord | None], given: Mapping[str, object]) -> list[str]:
    """Each given setting that differs from some case's record: what the CLI says it replaced.

    E.g. "mode strict (recorded: compat)".
    """
    notes = []
    for name, value in given.items():
        recorded = sorted(
            {_recorded_value(record, name) for record in found if record is not None}, key=str
        )
        differing = [str(old) for old in recorded if old != value]
        if differing:
            notes.append(f"{name} {value} (recorded: {', '.join(differing)})")
    return notes


def _recorded_value(record: PlayRecord, name: str) -> object:
    if name in GENERATION:
        return getattr(record, name)
    return getattr(record.protocol, name)


COLLECTED_FIELD = "collected"
"""The saved row's field (and the case's metadata key) holding who collected it and why."""
STRATEGIES = ("Just Ask", "Indirection", "Legalese", "Obfuscation", "Rule Change", "Simulation")
"""The red-team suites' strategies (their cases' categories), offered when a case is saved.

Spelled as upstream RuLES's category values, as `suites.slots.STRATEGIES` (a test keeps the two
alike: `suites.official` imports this module, so it cannot import the suites)."""
MAX_NOTES_CHARS = 4000


class CollectedNote(BaseModel):
    """What a red-teamer adds to a saved case: the model it was tried on, and notes.

    The strategy is the case's category (`round` in the saved row), as in the red-team suites.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None = Field(default=None, max_length=500)
    """The model spec the case was collected against (credentials redacted)."""
    notes: str = Field(default="", max_length=MAX_NOTES_CHARS)
    broke: bool | None = None
    """Whether a rule had broken in the game when the case was saved (None: not recorded)."""


def read_note(raw: JsonValue, where: str) -> CollectedNote:
    """A row's `collected` object; a malformed one is a DataError naming its field."""
    return _read_object(CollectedNote, raw, where, COLLECTED_FIELD)


def note_of(case: TestCase) -> CollectedNote | None:
    """The note a loaded case carries (checked when its file was read), or None."""
    raw = case.metadata.get(COLLECTED_FIELD)
    return None if raw is None else CollectedNote.model_validate(raw)
