"""Building conversations and reading both modes' verdicts, for the security scenario tests."""

import random

from rulebench.core.cases import Verdict
from rulebench.core.messages import Message
from rulebench.scenarios.base import Scenario, Version


def user(content: str) -> Message:
    return Message(role="user", content=content)


def assistant(content: str) -> Message:
    return Message(role="assistant", content=content)


def chat(*turns: str) -> list[Message]:
    """Alternating turns, user first."""
    return [user(t) if i % 2 == 0 else assistant(t) for i, t in enumerate(turns)]


def verdicts(
    scenario: Scenario, messages: list[Message], version: Version = "v3"
) -> tuple[bool, bool]:
    """(passed in compat, passed in strict)."""
    compat = scenario.evaluate(messages, "compat", version)
    strict = scenario.evaluate(messages, "strict", version)
    return compat.passed, strict.passed


def reason(scenario: Scenario, messages: list[Message], mode: str = "compat") -> str:
    verdict: Verdict = scenario.evaluate(messages, mode)  # type: ignore[arg-type]
    assert not verdict.passed
    assert verdict.reason is not None
    return verdict.reason


def draws(cls: type[Scenario], seed: int, count: int = 1) -> list[Scenario]:
    rng = random.Random(seed)
    return [cls.sample(rng) for _ in range(count)]
