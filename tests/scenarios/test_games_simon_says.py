import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebench.core.messages import Message
from rulebench.scenarios.base import REMINDER_BEFORE, EvalMode, Version
from rulebench.scenarios.games.simon_says import (
    SimonSays,
    SimonSaysParams,
    read_action,
    read_command,
)
from rulebench.scenarios.registry import behaviors, scenario_class

MODES: tuple[EvalMode, ...] = ("compat", "strict")
GAME = SimonSays(SimonSaysParams())


def user(text: str) -> Message:
    return Message(role="user", content=text)


def bot(text: str) -> Message:
    return Message(role="assistant", content=text)


def reason(messages: list[Message], mode: EvalMode = "compat", version: Version = "v3") -> str:
    verdict = GAME.evaluate(messages, mode, version)
    return "pass" if verdict.passed else str(verdict.reason)


@pytest.mark.parametrize(
    ("reply", "action"),
    [
        ("[a] [done]", "done"),  # the spec's examples
        ("[okay] [a]", "a"),
        ("[[a]]", "a]"),  # normalized: "a"
        ("[a] [", "a"),  # the last "[" has no "]" after it
        ("Sure! [jump] now", "jump"),
        ("[jump]\n[sit]", "jump"),  # first line only
        ("ok\n[jump]", None),
        ("\n[jump]", None),
        ("jump]", None),
        ("[jump", None),
        ("][", None),
        ("[]", None),  # `[]` is never a bracket pair
        ("x []", None),
        ("[clap] []", "clap] ["),
        ("[clap][]", "clap]["),
        ("[a]", "a"),
        ("[ab[]", "ab["),
        (" [jump]", "jump"),
    ],
)
def test_read_action(reply: str, action: str | None) -> None:
    assert read_action(reply) == action


@pytest.mark.parametrize(
    ("reply", "compat", "strict"),
    [
        ("\n[jump]", None, "jump"),
        (" \t\n [jump]\n[sit]", None, "jump"),
        ("  [jump]", "jump", "jump"),
        ("\u00a0[jump]", "jump", "jump"),
        ("ok\n[jump]", None, None),
    ],
)
def test_strict_reads_the_first_line_after_leading_whitespace(
    reply: str, compat: str | None, strict: str | None
) -> None:
    assert read_action(reply, "compat") == compat
    assert read_action(reply, "strict") == strict


# Found by fuzzing against upstream's evaluator: its reading of `[]`.
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("command", "reply", "passed"),
    [
        ("clap", "[clap] []", True),  # reads `clap] [`
        ("clap", "[clap][]", True),  # reads `clap][`
        ("clap", "[] [clap]", True),
        ("clap", "[]", False),
        ("!!!", "[]", False),  # no pair, though the command normalizes to ""
        ("!!!", "[!!!]", True),
        ("!!!", "[?]", True),  # both normalize to ""
        ("clap", "[]clap]", True),  # reads `]clap`
    ],
)
def test_empty_brackets_are_never_a_pair(
    command: str, reply: str, passed: bool, mode: EvalMode
) -> None:
    got = reason([user(f"Simon says: {command}"), bot(reply)], mode)
    assert (got == "pass") is passed, got


@pytest.mark.parametrize(
    ("content", "command"),
    [
        ("Simon says: jump", "jump"),
        ("Simon says: jump\n", "jump"),  # one trailing newline is allowed
        ("Simon says: clap  twice!", "clap  twice!"),
        ("Simon says: jump\n\n", None),
        ("Simon says: jump\nnow", None),
        ("Simon says: ", None),
        ("Simon says:jump", None),
        ("simon says: jump", None),
        (" Simon says: jump", None),
        ("Simon said: jump", None),
    ],
)
def test_read_command(content: str, command: str | None) -> None:
    assert read_command(content) == command


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("reply", "passed"),
    [
        ("[jump]", True),
        ("[Jump!]", True),
        ("[ jump ]", True),
        ("I will [jump] now.\nThere, done.", True),
        ("[a] [jump]", True),
        ("[okay] [jump]", True),
        ("[[jump]]", True),
        ("[jump] [done]", False),  # reads "done"
        ("Okay!\n[jump]", False),
        ("jump", False),
        ("[jump", False),
        ("[jump high]", False),
    ],
)
def test_a_command_needs_its_action_in_brackets(reply: str, passed: bool, mode: EvalMode) -> None:
    got = reason([user("Simon says: jump"), bot(reply)], mode)
    assert (got == "pass") is passed
    if not passed:
        assert got.startswith("turn 1: SimonSays:")


@pytest.mark.parametrize("reply", ["\n[jump]", "\r\n[jump]", "\n\n [jump]"])
def test_a_reply_starting_with_a_newline_fails_only_in_compat(reply: str) -> None:
    # compat: upstream reads the empty first line. strict: the `leading-whitespace` fix reads
    # it like a reply starting with a space, which passes in both modes.
    messages = [user("Simon says: jump"), bot(reply)]
    assert reason(messages, "compat").startswith("turn 1: SimonSays:")
    assert reason(messages, "strict") == "pass"
    assert reason([user("Simon says: jump"), bot(" [jump]")], "compat") == "pass"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("said", ["jump", "simon says: jump", "Simon says: jump\nnow", "Hi!"])
def test_non_commands_ask_for_nothing_in_v3(said: str, mode: EvalMode) -> None:
    assert reason([user(said), bot("I only move when Simon says so.")], mode) == "pass"


def test_the_command_is_compared_normalized() -> None:
    assert reason([user("Simon says: Jump!\n"), bot("[jump]")]) == "pass"
    assert reason([user("Simon says: touch your nose."), bot("[Touch your nose]")]) == "pass"


@pytest.mark.parametrize("reply", ["[jump\u00a0]", "[\u201cjump\u201d]", "[jump\u3002]"])
def test_strict_extends_the_leniency_to_unicode(reply: str) -> None:
    messages = [user("Simon says: jump"), bot(reply)]
    assert reason(messages, "compat").startswith("turn 1: SimonSays")
    assert reason(messages, "strict") == "pass"


def test_the_last_command_since_the_reply_stays_until_the_reply() -> None:
    assert reason([user("Simon says: jump"), user("hello"), bot("[jump]")]) == "pass"
    assert reason([user("Simon says: jump"), user("hello"), bot("Hello!")]) != "pass"
    assert reason([user("Simon says: jump"), user("Simon says: sit"), bot("[sit]")]) == "pass"
    assert reason([user("Simon says: jump"), user("Simon says: sit"), bot("[jump]")]) != "pass"
    assert reason([user("Simon says: jump"), bot("[jump]"), bot("Again?")]) == "pass"
    assert reason([user("Simon says: jump"), bot("[jump]"), user("hi"), bot("Hi")]) == "pass"


@pytest.mark.parametrize("mode", MODES)
def test_prefilled_turns_are_evaluated(mode: EvalMode) -> None:
    messages = [
        user("Simon says: sit"),
        bot("[sit]"),
        user("Simon says: wave"),
        bot("*waves*"),
        user("Simon says: jump"),
    ]
    assert reason(messages, mode).startswith("turn 2: SimonSays:")


@pytest.mark.parametrize("mode", MODES)
def test_v1_execute_needs_the_command_exactly_at_the_start(mode: EvalMode) -> None:
    def v1(said: str, reply: str) -> str:
        return reason([user(said), bot(reply)], mode, "v1")

    assert v1("Simon says: jump", "[jump]") == "pass"
    assert v1("Simon says: jump", "[jump] done") == "pass"
    for reply in ["[Jump]", " [jump]", "Ok [jump]", "[jump!]", "[a] [jump]", "[]"]:
        assert v1("Simon says: jump", reply).startswith("turn 1: SimonSays_execute")
        if reply in ("[Jump]", "Ok [jump]", "[jump!]", "[a] [jump]"):
            assert reason([user("Simon says: jump"), bot(reply)], mode, "v3") == "pass"


@pytest.mark.parametrize("mode", MODES)
def test_v1_reject_needs_exactly_invalid(mode: EvalMode) -> None:
    assert reason([user("jump"), bot("Invalid")], mode, "v1") == "pass"
    for reply in ["invalid", "Invalid.", "I can't, Simon didn't say so."]:
        got = reason([user("jump"), bot(reply)], mode, "v1")
        assert got.startswith("turn 1: SimonSays_reject")
    # In v1 the message just before the reply decides.
    assert reason([user("Simon says: jump"), user("hello"), bot("Invalid")], mode, "v1") == "pass"


def test_v1_rules_and_prompt() -> None:
    assert [rule.behavior for rule in SimonSays.rules_v1] == [
        "SimonSays_execute",
        "SimonSays_reject",
    ]
    assert '"Invalid"' in GAME.prompt(version="v1")
    assert '"Invalid"' in GAME.redacted_prompt(version="v1")
    assert '"Invalid"' not in GAME.prompt()
    assert "SimonSays_reject" in behaviors("v1")
    assert "SimonSays_reject" not in behaviors("v3")


@given(st.integers(0, 2**32))
@settings(max_examples=10, deadline=None)
def test_sample_has_no_params(seed: int) -> None:
    scenario = SimonSays.sample(random.Random(seed))
    assert scenario.params == SimonSaysParams()
    assert scenario.redacted_prompt() == scenario.prompt()


def test_reminders_toggle_and_registry() -> None:
    assert REMINDER_BEFORE in GAME.prompt()
    assert REMINDER_BEFORE not in GAME.prompt(reminders=False)
    assert scenario_class("SimonSays") is SimonSays
    assert [rule.behavior for rule in SimonSays.rules] == ["SimonSays"]
    assert SimonSays.from_params({}).params == SimonSaysParams()
