"""A scenarios run's typed config: its suites, protocol and sizes, and the cases it holds."""

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import Field, JsonValue, PrivateAttr, field_validator, model_validator

from rulebench.core.errors import ConfigError
from rulebench.core.renamed import rename_fields
from rulebench.core.sizes import PerGroup
from rulebench.core.wording import UpstreamText
from rulebench.engine.task_config import GenerationDefaults, TaskConfig
from rulebench.scenarios.played import (
    GENERATION,
    PROTOCOL_SETTINGS,
    Setting,
    records,
    replayed_protocol,
    uniform_record,
)
from rulebench.scenarios.protocol import Protocol, unread_clone
from rulebench.scenarios.run_cases import GENERATED_SUITES, RunCases, load_run_cases
from rulebench.scenarios.sizes import REPLY_LIMITS, Size, run_size
from rulebench.scenarios.suffix import SuffixOn

logger = logging.getLogger(__name__)

CASE_FIELDS = ("suites", "scenarios", "per_group", "cap_files", "seed", "version")
"""The fields a config's cases follow (`run_cases.load_run_cases`): cases held by a copy
that changed none of them are still its cases."""


class ScenarioConfig(TaskConfig):
    """Everything that defines a scenarios run's items and evaluation (stored for --resume)."""

    suites: tuple[str, ...] = ("basic",)
    """Generated suites (benign, basic, redteam) and/or folders or .jsonl files of official data."""
    seed: int = 0
    """Seeds the generated suites' parameters and texts."""
    per_group: PerGroup = 5
    """Cases per behavior of each generated suite (None, "all" in a file: the official
    sizes). Files and folders of cases run whole: the user named those cases."""
    sizes: tuple[Size, ...] | None = None
    """Each suite's size as the run plays it, in `suites` order (`scenarios.sizes`: official
    when it plays every case the suite holds), which sets its cases' reply limit; filled in
    when the run is made (`resolved_for`). None in runs stored before it: every case plays at
    the run's limit."""
    cap_files: bool = False
    """Whether `per_group` caps files too: runs stored under the old field name
    (`per_behavior`) capped them, and resume as they ran."""
    scenarios: tuple[str, ...] = ()
    """Only these scenarios (default: all)."""
    protocol: Protocol = Protocol()
    """How generated cases, and saved cases without a record, are played."""
    overrides: tuple[Setting, ...] = ()
    """Settings given for this run, which win over saved cases' records (`scenarios.played`):
    the protocol fields the caller set, and max_tokens/temperature when the run names them.
    Every other setting of a recorded case replays as recorded."""
    upstream: UpstreamText | None = None
    """Where the RuLES clone now is for saved cases played in upstream's wording, when it moved
    since (`--upstream PATH`); it must hold the same text. None: the clone each case recorded."""
    repeats: int = Field(default=1, ge=1)
    version: Literal["v1", "v3"] = "v3"
    """Benchmark version of official files (v1 files are scored by v1 evaluators)."""
    suffix: str | None = None
    """An adversarial suffix (e.g. found by `rulebench attack gcg`) appended to user messages;
    item ids stay those of the unsuffixed cases, so a base run and a suffixed run pair up."""
    suffix_on: SuffixOn = "every"
    """Which user messages of each case get the suffix (prefilled user turns included)."""
    suffix_source: str | None = None
    """Where the suffix came from, as the user named it (a file, a GCG run): for readers."""
    judge_reasoning: bool = False
    """Also judge each reply's thinking with its answer (`passed_anywhere` in the details):
    the verdict on the answer stays the score, and reports show both rates side by side."""
    _held: tuple[tuple[object, ...], RunCases] | None = PrivateAttr(default=None)
    """The cases loaded for this config (`holding`), with the fields they were loaded for;
    never stored, and carried by the copies the hooks make."""

    @model_validator(mode="after")
    def _suffix_is_whole(self) -> "ScenarioConfig":
        # A blank suffix would run the base benchmark under an attack's name; suffix settings
        # without a suffix would be recorded as an attack that never happened.
        if self.suffix is not None and not self.suffix.strip():
            raise ConfigError(f"suffix: {self.suffix!r} is blank: give the attack's text")
        if self.suffix is None and self.suffix_on != "every":
            raise ConfigError(f"--suffix-on {self.suffix_on} needs a suffix (--suffix FILE|RUN)")
        if self.suffix is None and self.suffix_source:
            raise ConfigError(f"suffix_source {self.suffix_source!r} is set but there is no suffix")
        return self

    @model_validator(mode="after")
    def _sizes_are_the_suites(self) -> "ScenarioConfig":
        if self.sizes is not None and len(self.sizes) != len(self.suites):
            raise ConfigError(
                f"sizes: {len(self.sizes)} given for {len(self.suites)} suites "
                f"({', '.join(self.suites)}): drop sizes (each run works them out)"
            )
        return self

    @model_validator(mode="after")
    def _upstream_text_is_v3(self) -> "ScenarioConfig":
        # The clone holds the v3 text only: v1 cases would be sent a text they were not made for.
        if self.protocol.prompts == "upstream" and self.version != "v3":
            raise ConfigError(
                "--prompts upstream with --version v1: the clone's scenarios hold the v3 text "
                "only; use --prompts rulebench for v1 files"
            )
        return self

    @model_validator(mode="before")
    @classmethod
    def _old_names_and_overrides(cls, data: object) -> object:
        if isinstance(data, dict) and "per_behavior" in data and "cap_files" not in data:
            data = {**data, "cap_files": True}  # the old field capped files as well
        data = rename_fields(data, {"per_behavior": "per_group"}, "scenarios")
        if isinstance(data, dict) and "overrides" not in data and "protocol" in data:
            # Protocol fields the caller set win over saved cases' records.
            given = data["protocol"]
            names = given.model_fields_set if isinstance(given, Protocol) else given
            if isinstance(names, set | dict):
                data = {**data, "overrides": _protocol_settings(names)}
        return data

    @field_validator("upstream", mode="before")
    @classmethod
    def _a_record_not_a_folder(cls, value: object) -> object:
        if isinstance(value, str | Path):  # read by `load_inputs`, before validation
            raise ConfigError(unread_clone(value))
        return value

    @classmethod
    def load_inputs(cls, fields: Mapping[str, JsonValue]) -> Mapping[str, JsonValue]:
        """The fields with each clone named by its folder read into its record.

        A library caller names a clone as `--upstream PATH` does: the protocol's, or where a
        saved game's clone now is (`upstream`).
        """
        read = dict(fields)
        protocol = read.get("protocol")
        if isinstance(protocol, dict) and isinstance(folder := protocol.get("upstream"), str):
            read["protocol"] = {**protocol, "upstream": _record_of_clone(folder)}
        if isinstance(folder := read.get("upstream"), str):
            read["upstream"] = _record_of_clone(folder)
        return read

    def generation_defaults(self) -> GenerationDefaults:
        """Saved cases' recorded settings, else the generated suites' size's reply limit.

        A run mixing sizes plays each case at its own suite's limit (`ScenarioTask.solve`);
        the run's limit is its generated suites' (files' without one), quick if any is quick.
        """
        if not self.has_generated():
            record = uniform_record(records(self.run_cases().cases))
            if record is not None:
                return GenerationDefaults(
                    max_tokens=record.max_tokens, temperature=record.temperature
                )
        sizes = self.suite_sizes()
        generated = [
            size
            for suite, size in zip(self.suites, sizes, strict=True)
            if suite in GENERATED_SUITES
        ]
        return GenerationDefaults(max_tokens=REPLY_LIMITS[run_size(generated or sizes)])

    def suite_sizes(self, loaded: RunCases | None = None) -> tuple[Size, ...]:
        """Each suite's size: as stored, else from the cases it holds and those the run plays.

        `loaded`: this config's cases, where the caller has loaded them (else loaded here).
        """
        if self.sizes is not None:
            return self.sizes
        if self.per_group is None:  # nothing is cut
            return tuple("official" for _ in self.suites)
        return (loaded or self.run_cases()).sizes

    def reply_limits(self, loaded: RunCases | None = None) -> tuple[int, ...]:
        """Each suite's reply limit from its size (saved cases' records and `--max-tokens` win)."""
        return tuple(REPLY_LIMITS[size] for size in self.suite_sizes(loaded))

    def with_inputs_loaded(self) -> "ScenarioConfig":
        """This config holding its cases: the hooks the engine calls next read no file."""
        return self if self._held_cases() is not None else self.holding(load_run_cases(self))

    def holding(self, loaded: RunCases) -> "ScenarioConfig":
        """A copy holding `loaded`, this config's cases as its caller loaded them."""
        copy = self.model_copy()
        copy._held = (self._case_key(), loaded)
        return copy

    def run_cases(self) -> RunCases:
        """The cases held (`holding`), else loaded now (each suite is parsed once per process)."""
        return self._held_cases() or load_run_cases(self)

    def _held_cases(self) -> RunCases | None:
        if self._held is None or self._held[0] != self._case_key():
            return None
        return self._held[1]

    def _case_key(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in CASE_FIELDS)

    def has_generated(self) -> bool:
        """Whether a generated suite is among the suites (files are the others)."""
        return any(suite in GENERATED_SUITES for suite in self.suites)

    def is_generated_only(self) -> bool:
        """Whether every suite is generated (no file can hold saved cases)."""
        return all(suite in GENERATED_SUITES for suite in self.suites)

    def with_run_settings(self, given: Mapping[str, JsonValue]) -> "ScenarioConfig":
        """A reply limit or temperature named for the run wins over saved cases' records."""
        named = [name for name in GENERATION if given.get(name) is not None]
        overrides = tuple(dict.fromkeys([*self.overrides, *named]))
        return (
            self
            if overrides == self.overrides
            else self.model_copy(update={"overrides": overrides})
        )

    def resolved_for(self, model: str) -> "ScenarioConfig":
        """The config with each suite's size, and the one record its saved cases share.

        Files whose cases all share one record store it as the run's protocol: the stored run
        then says how its cases were played, as the game did.
        """
        loaded = self.run_cases()
        found = [] if self.is_generated_only() else records(loaded.cases)
        if self.upstream is not None and not any(
            record is not None and record.protocol.prompts == "upstream" for record in found
        ):
            raise ConfigError(
                f"--upstream {self.upstream.root} is read only with --prompts upstream, or for "
                "saved cases played in upstream's wording (--suite holds none): add --prompts "
                "upstream, or drop --upstream"
            )
        update: dict[str, object] = {"sizes": loaded.sizes}
        record = None if self.has_generated() else uniform_record(found)
        if record is not None:
            update["protocol"] = replayed_protocol(
                record, self.protocol, self.overrides, self.upstream
            )
        return self.model_copy(update=update)


def _record_of_clone(folder: str) -> JsonValue:
    from rulebench.scenarios.upstream.text import clone_record

    return clone_record(folder).model_dump(mode="json")


def _protocol_settings(names: "set[str] | dict[str, object]") -> tuple[Setting, ...]:
    """The replay settings among a protocol's given fields (the clone goes with `prompts`)."""
    given = set(names) | ({"prompts"} if "upstream" in names else set())
    return tuple(name for name in PROTOCOL_SETTINGS if name in given)
