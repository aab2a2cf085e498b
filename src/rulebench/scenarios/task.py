"""The RuLES benchmark as the runner sees it: each (test case, repeat) is an item."""

import logging

from pydantic import JsonValue

from rulebench.core.cases import TestCase
from rulebench.core.errors import DataError
from rulebench.core.items import Item, Outcome, content_hash
from rulebench.core.messages import GenerateConfig
from rulebench.core.validation import validate_into
from rulebench.engine.task import Session
from rulebench.scenarios.base import EvalMode, Version
from rulebench.scenarios.config import ScenarioConfig
from rulebench.scenarios.item_meta import CaseMeta
from rulebench.scenarios.played import (
    record_of,
    replayed_generation,
    replayed_protocol,
)
from rulebench.scenarios.protocol import play_case
from rulebench.scenarios.registry import behaviors, scenario_class
from rulebench.scenarios.suffix import as_written, suffixed_case
from rulebench.scenarios.thinking_verdict import verdict_with_thinking

logger = logging.getLogger(__name__)


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
        self._limits: dict[str, int] = {}
        """Each case's reply limit by its suite's stored size (none in runs stored before)."""

    def config(self) -> dict[str, JsonValue]:
        """The validated configuration as JSON."""
        return self.settings.model_dump(mode="json")

    def items(self) -> list[Item]:
        """One item per case and repeat; ids hash the case, so two models pair up for McNemar.

        A suffix changes the messages played, never the ids: they hash the unsuffixed case.
        """
        items = []
        loaded = self.settings.run_cases()
        limits = self.settings.reply_limits() if self.settings.sizes is not None else ()
        for case, suite in zip(loaded.cases, loaded.suites, strict=True):
            case_id = content_hash(
                [case.suite, case.id, case.params, [m.model_dump() for m in case.messages]]
            )
            self._cases[case_id] = case
            if limits:
                self._limits[case_id] = limits[suite]
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

    def _generation(self, case_id: str, run: GenerateConfig) -> GenerateConfig:
        """The run's settings at the case's own suite's reply limit, unless the run named one.

        A run mixing sizes (`-s OFFICIAL -s basic`) plays each case at its suite's limit.
        """
        limit = self._limits.get(case_id)
        if limit is None or limit == run.max_tokens or "max_tokens" in self.settings.overrides:
            return run
        return run.model_copy(update={"max_tokens": limit})

    async def solve(self, item: Item, session: Session) -> Outcome:
        """Play the case; the verdict, placement and protocol go with the result.

        With a suffix the model sees the suffixed case and its replies are judged against the
        case as written (see `scenarios.suffix`).
        """
        if not self._cases:
            self.items()
        case_id = CaseMeta.read(item.metadata, item.id).case_id
        case = self._cases[case_id]
        scenario = scenario_class(case.scenario).from_params(case.params)
        protocol = self.settings.protocol
        session.config = self._generation(case_id, session.config)
        record = record_of(case)
        if record is not None:  # a saved case replays as it was played (scenarios.played)
            given = self.settings
            protocol = replayed_protocol(record, protocol, given.overrides, given.upstream)
            # The session is this item's own: its settings change for this case only.
            session.config = replayed_generation(record, session.config, given.overrides)
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
                "max_tokens": session.config.max_tokens,
                "temperature": session.config.temperature,
                "placement": placement,
                "reminders": protocol.reminders,
                "prompts": protocol.prompts,
                "mode": protocol.mode,
                "version": case.version,
                f"{other}_on_this_transcript": other_passed,
                **(
                    verdict_with_thinking(scenario, judged, protocol.mode, case.version)
                    if self.settings.judge_reasoning
                    else {}
                ),
            },
        )
