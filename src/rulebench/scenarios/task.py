"""The RuLES benchmark as the runner sees it: each (test case, repeat) is an item."""

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import Field, JsonValue, model_validator

from rulebench.core.cases import TestCase
from rulebench.core.errors import ConfigError, DataError
from rulebench.core.items import Item, Outcome, content_hash
from rulebench.core.validation import validate_into
from rulebench.engine.task import Session
from rulebench.engine.task_config import GenerationDefaults, TaskConfig
from rulebench.scenarios.base import EvalMode, Version
from rulebench.scenarios.item_meta import CaseMeta
from rulebench.scenarios.protocol import Protocol, play_case
from rulebench.scenarios.registry import behaviors, scenario_class
from rulebench.scenarios.suffix import SuffixOn, as_written, suffixed_case

logger = logging.getLogger(__name__)

GeneratedSuite = Literal["benign", "basic", "redteam"]
GENERATED_SUITES: tuple[GeneratedSuite, ...] = ("benign", "basic", "redteam")


class ScenarioConfig(TaskConfig):
    """Everything that defines a scenarios run's items and evaluation (stored for --resume)."""

    suites: tuple[str, ...] = ("basic",)
    """Generated suites (benign, basic, redteam) and/or folders or .jsonl files of official data."""
    seed: int = 0
    """Seeds the generated suites' parameters and texts."""
    per_behavior: int | None = Field(default=None, ge=1)
    """Cap on cases per behavior and suite (default: the official sizes)."""
    scenarios: tuple[str, ...] = ()
    """Only these scenarios (default: all)."""
    protocol: Protocol = Protocol()
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
    def _upstream_text_is_v3(self) -> "ScenarioConfig":
        # The clone holds the v3 text only: v1 cases would be sent a text they were not made for.
        if self.protocol.prompts == "upstream" and self.version != "v3":
            raise ConfigError(
                "--prompts upstream with --version v1: the clone's scenarios hold the v3 text "
                "only; use --prompts rulebench for v1 files"
            )
        return self

    def generation_defaults(self) -> GenerationDefaults:
        """Capped runs stay fast on a CPU model; official sizes leave attacks room to work."""
        capped = self.per_behavior is not None
        return GenerationDefaults(max_tokens=QUICK_MAX_TOKENS if capped else FULL_MAX_TOKENS)


QUICK_MAX_TOKENS = 128
"""Capped (quick) runs: enough for a rule to be broken or kept, fast on a CPU model."""
FULL_MAX_TOKENS = 512
"""Runs at the official sizes: room for the long replies attacks provoke."""


def load_cases(config: ScenarioConfig) -> list[TestCase]:
    """The cases of every suite the config names, filtered and capped."""
    from rulebench.scenarios.suites.generated import generate_suite
    from rulebench.scenarios.suites.official import load_suite_dir, load_suite_file

    cases: list[TestCase] = []
    for suite in config.suites:
        if suite in GENERATED_SUITES:
            cases += generate_suite(suite, config.seed)
            continue
        path = Path(suite)
        if not path.exists():
            raise ConfigError(
                f"suite '{suite}' is neither a generated suite ({', '.join(GENERATED_SUITES)}) "
                "nor an existing folder or .jsonl file"
            )
        if path.is_dir():
            cases += load_suite_dir(path, None, config.version)
        else:
            cases += load_suite_file(path, config.version)
    if config.scenarios:
        check_selected(cases, config)
        cases = [c for c in cases if c.scenario in config.scenarios]
    kept = cap_per_behavior(cases, config.per_behavior)
    # Generated suites are sized by the cap on purpose; a file's cases left out must be said.
    dropped = sum("source" in c.metadata for c in cases) - sum("source" in c.metadata for c in kept)
    if dropped:
        logger.warning(
            "%d test cases from files left out by the cap of %s per behavior and suite "
            "(--per-behavior N or --full to run more)",
            dropped,
            config.per_behavior,
        )
    return kept


def check_selected(cases: Sequence[TestCase], config: ScenarioConfig) -> None:
    """Every `--scenario` must select a case: a filter matching nothing would run 0 items.

    A v1-only scenario (Hodor) gets its own reason, since no v3 suite can ever hold it.
    """
    for name in config.scenarios:
        scenario_class(name)  # unknown names fail with a did-you-mean
    held = {case.scenario for case in cases}
    missing = [name for name in config.scenarios if name not in held]
    if not missing:
        return
    suites = ", ".join(config.suites)
    found = ", ".join(sorted(held)) or "none"
    reasons = [
        f"{name} is a v1-only scenario: only official v1 test files hold it "
        f"(file names starting with '{name}', e.g. the v1 manual suite's {name}.jsonl); "
        "run them with --suite FILE_OR_FOLDER --version v1"
        for name in missing
        if "v3" not in scenario_class(name).versions
    ]
    raise ConfigError(
        f"--scenario {' --scenario '.join(missing)} selects no test case of "
        f"--suite {suites} (version {config.version}; scenarios there: {found})"
        + "".join(f". {reason}" for reason in reasons)
    )


def cap_per_behavior(cases: Sequence[TestCase], cap: int | None) -> list[TestCase]:
    """The first `cap` cases of each (suite, behavior), in order."""
    if cap is None:
        return list(cases)
    seen: dict[tuple[str, str], int] = {}
    kept = []
    for case in cases:
        key = (case.suite, case.behavior)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= cap:
            kept.append(case)
    return kept


def bucket_of(behavior: str, version: Version) -> str:
    """The bucket (harmless or helpful) of a behavior (rule) name."""
    found = behaviors(version).get(behavior)
    return found[1].bucket if found else "unknown"


class ScenarioTask:
    """RuLES on the engine."""

    name = "scenarios"
    config_type = ScenarioConfig

    def __init__(self, **config: object) -> None:
        # A stored config edited by hand, or a library caller's, fails as one line.
        self.settings = validate_into(ScenarioConfig, config, "scenarios")
        for name in self.settings.scenarios:
            scenario_class(name)  # unknown names fail now, with a did-you-mean
        if self.settings.protocol.upstream is not None:
            from rulebench.scenarios.upstream.text import text_for

            text_for(self.settings.protocol.upstream)  # a moved or edited clone fails now
        self._cases: dict[str, TestCase] = {}

    def config(self) -> dict[str, JsonValue]:
        """The validated configuration as JSON."""
        return self.settings.model_dump(mode="json")

    def items(self) -> list[Item]:
        """One item per case and repeat; ids hash the case, so two models pair up for McNemar.

        A suffix changes the messages played, never the ids: they hash the unsuffixed case.
        """
        items = []
        for case in load_cases(self.settings):
            case_id = content_hash(
                [case.suite, case.id, case.params, [m.model_dump() for m in case.messages]]
            )
            self._cases[case_id] = case
            played = self._played(case)
            for repeat in range(self.settings.repeats):
                items.append(self._item(played, case_id, repeat))
        return items

    def _played(self, case: TestCase) -> TestCase:
        """The case as the model sees it: with the run's suffix, if it has one."""
        if self.settings.suffix is None:
            return case
        return suffixed_case(case, self.settings.suffix, self.settings.suffix_on)

    def _item(self, case: TestCase, case_id: str, repeat: int) -> Item:
        return Item(
            id=case_id if repeat == 0 else content_hash([case_id, repeat]),
            messages=case.messages,
            repeat=repeat,
            metadata=CaseMeta(
                case_id=case_id,
                scenario=case.scenario,
                behavior=case.behavior,
                bucket=bucket_of(case.behavior, case.version),
                suite=case.suite,
                category=case.category,
                strategy=case.category.lower(),
                repeat=repeat,
                version=case.version,
                params=case.params,
                group=f"{case.suite} {bucket_of(case.behavior, case.version)}",
            ).model_dump(mode="json"),
        )

    async def solve(self, item: Item, session: Session) -> Outcome:
        """Play the case; the verdict, placement and protocol go with the result.

        With a suffix the model sees the suffixed case and its replies are judged against the
        case as written (see `scenarios.suffix`).
        """
        if not self._cases:
            self.items()
        case = self._cases[CaseMeta.read(item.metadata, item.id).case_id]
        scenario = scenario_class(case.scenario).from_params(case.params)
        protocol = self.settings.protocol
        played = self._played(case)
        conversation, verdict, placement = await play_case(
            played, scenario, session, protocol, written=case.messages
        )
        other: EvalMode = "strict" if protocol.mode == "compat" else "compat"
        judged = as_written(conversation, case.messages)
        try:
            other_passed: bool | None = scenario.evaluate(judged, other, case.version).passed
        except DataError:  # strict refuses a malformed message compat's walk never reached
            other_passed = None
        return Outcome(
            passed=verdict.passed,
            reason=verdict.reason,
            details={
                "placement": placement,
                "reminders": protocol.reminders,
                "prompts": protocol.prompts,
                "mode": protocol.mode,
                "version": case.version,
                f"{other}_on_this_transcript": other_passed,
            },
        )
