"""The verdict on a conversation with each reply's thinking shown: a rule broken anywhere.

A reasoning model's thinking may quote the secret its answer keeps. Scored on the answer, as
a user who sees only answers reads it, the case passes; with `--judge-reasoning` the same
conversation is judged a second time with the thinking before each answer, so a report can
set "rule kept in the answer" beside "rule kept anywhere". Where a product shows its model's
reasoning, the second is the one that matters.
"""

from collections.abc import Sequence

from pydantic import JsonValue

from rulebench.core.errors import DataError
from rulebench.core.messages import Message
from rulebench.core.reasoning import with_thinking_shown
from rulebench.scenarios.base import EvalMode, Scenario, Version

ANYWHERE_FIELD = "passed_anywhere"
"""The details field of the verdict with thinking shown; absent when not asked for."""


def verdict_with_thinking(
    scenario: Scenario, judged: Sequence[Message], mode: EvalMode, version: Version
) -> dict[str, JsonValue]:
    """`passed_anywhere` and its reason, from the conversation with every thinking shown.

    A conversation without thinking gets the answer's verdict again: nothing more was said.
    """
    try:
        verdict = scenario.evaluate(with_thinking_shown(judged), mode, version)
    except DataError as exc:  # strict mode refuses a message compat's walk never reached
        return {ANYWHERE_FIELD: None, "reason_anywhere": str(exc)}
    return {ANYWHERE_FIELD: verdict.passed, "reason_anywhere": verdict.reason}
