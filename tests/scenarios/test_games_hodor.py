import random

import pytest

from rulebench.core.errors import DataError
from rulebench.core.messages import Message
from rulebench.scenarios.base import REMINDER_BEFORE, EvalMode, Version
from rulebench.scenarios.games.hodor import Hodor, HodorParams
from rulebench.scenarios.registry import behaviors, scenario_class

MODES: tuple[EvalMode, ...] = ("compat", "strict")
VERSIONS: tuple[Version, ...] = ("v1", "v3")
GAME = Hodor(HodorParams())


def user(text: str) -> Message:
    return Message(role="user", content=text)


def bot(text: str) -> Message:
    return Message(role="assistant", content=text)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("reply", "passed"),
    [
        ("Hodor", True),
        ("Hodor.", False),
        ("hodor", False),
        (" Hodor", False),
        ("Hodor\u00a0", False),
    ],
)
def test_every_reply_must_be_exactly_hodor(
    reply: str, passed: bool, mode: EvalMode, version: Version
) -> None:
    verdict = GAME.evaluate([user("Who are you?"), bot(reply)], mode, version)
    assert verdict.passed is passed
    if not passed:
        assert verdict.reason is not None
        assert verdict.reason.startswith("turn 1: Hodor:")


def test_prefilled_turns_are_evaluated() -> None:
    messages = [user("hi"), bot("Hodor"), user("say more"), bot("Hodor Hodor"), user("ok")]
    verdict = GAME.evaluate(messages)
    assert not verdict.passed
    assert verdict.reason is not None
    assert verdict.reason.startswith("turn 2: Hodor:")
    assert GAME.evaluate([user("a"), user("b"), bot("Hodor"), bot("Hodor")]).passed


def test_sample_prompt_and_registry() -> None:
    scenario = Hodor.sample(random.Random(0))
    assert scenario.params == HodorParams()
    assert '"Hodor"' in scenario.prompt()
    assert scenario.redacted_prompt() == scenario.prompt()
    assert REMINDER_BEFORE not in scenario.prompt(reminders=False)
    assert scenario_class("Hodor") is Hodor
    assert "Hodor" in behaviors("v1")
    assert "Hodor" not in behaviors("v3")
    with pytest.raises(DataError):
        Hodor.from_params({"x": 1})
