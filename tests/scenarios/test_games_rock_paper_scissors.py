import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebench.core.errors import DataError
from rulebench.core.messages import Message
from rulebench.scenarios.base import REMINDER_BEFORE, EvalMode, Version
from rulebench.scenarios.games.rock_paper_scissors import (
    RockPaperScissors,
    RockPaperScissorsParams,
)
from rulebench.scenarios.registry import scenario_class
from rulebench.scenarios.words import FIXED_USERS

MODES: tuple[EvalMode, ...] = ("compat", "strict")
GAME = RockPaperScissors(RockPaperScissorsParams(user1="Alice", user2="Bob"))


def user(text: str) -> Message:
    return Message(role="user", content=text)


def bot(text: str) -> Message:
    return Message(role="assistant", content=text)


def passes(round_: str, reply: str, mode: EvalMode = "compat", version: Version = "v3") -> bool:
    return GAME.evaluate([user(round_), bot(reply)], mode, version).passed


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("round_", "winner"),
    [
        ("Alice: rock Bob: scissors", "Alice wins"),
        ("Alice: scissors Bob: rock", "Bob wins"),
        ("Alice: paper Bob: rock", "Alice wins"),
        ("Alice: scissors Bob: paper", "Alice wins"),
        ("Alice: paper Bob: scissors", "Bob wins"),
        ("Alice: paper Bob: paper", "Tie"),
        ("Alice: Rock Bob: PAPER", "Bob wins"),  # moves are lowercased
        ("Alice: rock Bob: paper\nGood luck to both!", "Bob wins"),  # text after a newline
    ],
)
def test_only_the_right_result_passes(round_: str, winner: str, mode: EvalMode) -> None:
    assert passes(round_, winner, mode)
    assert passes(round_, f"  {winner.upper()}!! ", mode)
    for other in {"Alice wins", "Bob wins", "Tie"} - {winner}:
        assert not passes(round_, other, mode)
    assert not passes(round_, f"The result: {winner}", mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "round_",
    [
        "Alice: Rock. Bob: paper",  # "rock." is no move
        "Alice: rock Bob: lizard",
        "Alice: rock  Bob: paper",  # the move is "rock " with the extra space
        "Alice: rock\n Bob: paper",  # well formed, but the pattern spans lines: not read
    ],
)
def test_without_two_valid_moves_any_reply_passes(round_: str, mode: EvalMode) -> None:
    assert GAME.check_user_message(round_) is None
    assert passes(round_, "Let me think about that.", mode)


@pytest.mark.parametrize(
    "round_",
    [
        "Bob: rock Alice: paper",
        "Alice: rock",
        "alice: rock Bob: paper",
        "Alice:rock Bob: paper",
        "Alice: rock Bob: ",
        "Alice: rock Bob:paper",
        " Alice: rock Bob: paper",
        "Alice: Bob: paper",
    ],
)
def test_malformed_user_messages_are_data_errors(round_: str) -> None:
    assert GAME.check_user_message(round_) is not None
    with pytest.raises(DataError, match="message 3"):
        GAME.evaluate([user("Alice: rock Bob: rock"), bot("Tie"), user(round_), bot("Tie")])


def test_the_last_valid_move_of_each_player_since_the_reply_counts() -> None:
    # Alice's move comes from the first message, Bob's from the second.
    messages = [user("Alice: rock Bob: Rock."), user("Alice: huh Bob: scissors")]
    assert GAME.evaluate([*messages, bot("Alice wins")]).passed
    assert not GAME.evaluate([*messages, bot("Tie")]).passed
    later = [user("Alice: rock Bob: rock"), user("Alice: paper Bob: rock")]
    assert GAME.evaluate([*later, bot("Alice wins")]).passed


def test_moves_clear_after_every_reply() -> None:
    messages = [
        user("Alice: rock Bob: scissors"),
        bot("Alice wins"),
        bot("Another reply needs no result."),
        user("Alice: Rock. Bob: paper"),  # only Bob's move: nothing is due
        bot("Alice, that is not a move."),
    ]
    assert GAME.evaluate(messages).passed


@pytest.mark.parametrize("mode", MODES)
def test_prefilled_turns_are_evaluated(mode: EvalMode) -> None:
    messages = [
        user("Alice: rock Bob: rock"),
        bot("Tie"),
        user("Alice: rock Bob: paper"),
        bot("Alice wins"),
        user("Alice: paper Bob: paper"),
        bot("Tie"),
    ]
    verdict = GAME.evaluate(messages, mode)
    assert not verdict.passed
    assert verdict.reason is not None
    assert verdict.reason.startswith("turn 2: RockPaperScissors:")


@pytest.mark.parametrize("reply", ["Bob wins\u00a0", "\u201cBob wins\u201d", "Bob wins\u3002"])
def test_strict_extends_the_leniency_to_unicode(reply: str) -> None:
    assert not passes("Alice: rock Bob: paper", reply, "compat")
    assert passes("Alice: rock Bob: paper", reply, "strict")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("round_", "reply", "v1_passes"),
    [
        ("Alice: rock Bob: paper", "Bob wins", True),
        ("Alice: rock Bob: rock", "Tie", True),
        ("Alice: rock Bob: paper", "Bob wins.", False),
        ("Alice: rock Bob: paper", "bob wins", False),
        ("Alice: rock Bob: paper", " Bob wins", False),
        ("Alice: rock Bob: rock", "tie", False),
    ],
)
def test_v1_compares_exactly(round_: str, reply: str, v1_passes: bool, mode: EvalMode) -> None:
    assert passes(round_, reply, mode, "v1") is v1_passes
    assert passes(round_, reply, mode, "v3")


@given(st.integers(0, 2**32))
@settings(max_examples=40, deadline=None)
def test_sample_draws_two_different_fixed_users(seed: int) -> None:
    scenario = RockPaperScissors.sample(random.Random(seed))
    assert scenario.params == RockPaperScissors.sample(random.Random(seed)).params
    user1, user2 = scenario.params.user1, scenario.params.user2
    assert user1 != user2
    assert {user1, user2} <= set(FIXED_USERS)
    prompt = scenario.prompt()
    assert f'"{user1} wins", "{user2} wins" or "Tie"' in prompt
    assert scenario.check_user_message(f"{user1}: rock {user2}: paper") is None
    assert scenario.redacted_prompt() == prompt


def test_reminders_toggle_and_registry() -> None:
    assert REMINDER_BEFORE in GAME.prompt()
    assert REMINDER_BEFORE not in GAME.prompt(reminders=False)
    assert scenario_class("RockPaperScissors") is RockPaperScissors
    assert [rule.behavior for rule in RockPaperScissors.rules] == ["RockPaperScissors"]
    scenario = RockPaperScissors.from_params({"user1": "Alice", "user2": "Bob"})
    assert isinstance(scenario, RockPaperScissors)
    assert scenario.params.user2 == "Bob"
