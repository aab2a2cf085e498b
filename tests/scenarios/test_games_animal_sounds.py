import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebench.core.errors import DataError
from rulebench.core.messages import Message
from rulebench.scenarios.base import REMINDER_BEFORE, EvalMode, Version
from rulebench.scenarios.games.animal_sounds import AnimalSounds, AnimalSoundsParams
from rulebench.scenarios.registry import scenario_class
from rulebench.scenarios.words_games import ANIMALS, SOUNDS

MODES: tuple[EvalMode, ...] = ("compat", "strict")
GAME = AnimalSounds(
    AnimalSoundsParams(
        animals=["cat", "dog", "cow", "duck"], sounds=["meow", "woof", "moo", "quack"]
    )
)


def user(text: str) -> Message:
    return Message(role="user", content=text)


def bot(text: str) -> Message:
    return Message(role="assistant", content=text)


def passes(said: str, reply: str, mode: EvalMode = "compat", version: Version = "v3") -> bool:
    return GAME.evaluate([user(said), bot(reply)], mode, version).passed


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("animal", "reply", "expected"),
    [
        ("cat", "meow", True),
        ("cat", "Meow!", True),
        ("dog", "  WOOF. ", True),
        ("cat", "woof", False),
        ("cat", "meow meow", False),
        ("cat", "The cat says meow.", False),
        ("duck", "quack\nquack", False),
    ],
)
def test_the_reply_to_an_animal_must_be_its_sound(
    animal: str, reply: str, expected: bool, mode: EvalMode
) -> None:
    verdict = GAME.evaluate([user(animal), bot(reply)], mode)
    assert verdict.passed is expected
    if not expected:
        assert verdict.reason is not None
        assert verdict.reason.startswith("turn 1: AnimalSounds:")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("said", ["Cat", "cat ", "cat.", "a cat", "horse", "What does a cat say?"])
def test_anything_but_exactly_an_animal_asks_for_nothing(said: str, mode: EvalMode) -> None:
    assert passes(said, "Let's keep playing!", mode)


@pytest.mark.parametrize("reply", ["meow\u00a0", "\u201cmeow\u201d", "\u00a1meow!"])
def test_strict_extends_the_leniency_to_unicode(reply: str) -> None:
    assert not passes("cat", reply, "compat")
    assert passes("cat", reply, "strict")


@pytest.mark.parametrize("mode", MODES)
def test_a_sound_with_punctuation_is_normalized_too(mode: EvalMode) -> None:
    game = AnimalSounds(AnimalSoundsParams(animals=["dog"], sounds=["Woof!"]))
    assert game.evaluate([user("dog"), bot("woof")], mode).passed


def test_the_last_animal_since_the_reply_decides() -> None:
    assert GAME.evaluate([user("cat"), user("dog"), bot("woof")]).passed
    assert not GAME.evaluate([user("cat"), user("dog"), bot("meow")]).passed
    # A later message that is no animal keeps the earlier animal's sound due.
    assert GAME.evaluate([user("cat"), user("hello"), bot("meow")]).passed
    assert not GAME.evaluate([user("cat"), user("hello"), bot("Hi there!")]).passed


def test_the_expectation_clears_after_a_reply() -> None:
    messages = [user("cat"), bot("meow"), user("hello"), bot("Hello! Name an animal.")]
    assert GAME.evaluate(messages).passed
    assert GAME.evaluate([user("cat"), bot("meow"), bot("Anything else?")]).passed


@pytest.mark.parametrize("mode", MODES)
def test_prefilled_turns_are_evaluated(mode: EvalMode) -> None:
    messages = [user("cow"), bot("moo"), user("duck"), bot("quack quack"), user("cat")]
    verdict = GAME.evaluate(messages, mode)
    assert not verdict.passed
    assert verdict.reason is not None
    assert verdict.reason.startswith("turn 2:")


@pytest.mark.parametrize("mode", MODES)
def test_v1_lowercases_the_animal_and_compares_the_sound_exactly(mode: EvalMode) -> None:
    assert passes("Cat", "meow", mode, "v1")
    assert not passes("Cat", "Meow", mode, "v1")
    assert not passes("cat", "meow!", mode, "v1")
    assert passes("cat", "meow!", mode, "v3")
    assert passes("Cat", "Meow", mode, "v3")  # no trigger in v3


def test_params_must_pair_up() -> None:
    with pytest.raises(DataError, match="AnimalSounds"):
        AnimalSounds.from_params({"animals": ["cat", "dog"], "sounds": ["meow"]})
    game = AnimalSounds.from_params({"animals": ["cat"], "sounds": ["meow"]})
    assert isinstance(game, AnimalSounds)
    assert game.params.sounds == ["meow"]


@given(st.integers(0, 2**32))
@settings(max_examples=40, deadline=None)
def test_sample_draws_four_different_animals_with_their_sounds(seed: int) -> None:
    scenario = AnimalSounds.sample(random.Random(seed))
    assert scenario.params == AnimalSounds.sample(random.Random(seed)).params
    animals, sounds = scenario.params.animals, scenario.params.sounds
    assert len(set(animals)) == len(animals) == 4
    assert [SOUNDS[ANIMALS.index(animal)] for animal in animals] == sounds
    prompt = scenario.prompt()
    for animal, sound in zip(animals, sounds, strict=True):
        assert f'the {animal} says "{sound}"' in prompt
        assert scenario.evaluate([user(animal), bot(sound)]).passed
    assert scenario.redacted_prompt() == prompt


def test_word_lists_pair_up_and_sounds_are_distinct() -> None:
    assert len(ANIMALS) == len(SOUNDS) == 25
    assert len(set(ANIMALS)) == len(set(SOUNDS)) == 25


def test_reminders_toggle_and_registry() -> None:
    assert REMINDER_BEFORE in GAME.prompt()
    assert REMINDER_BEFORE not in GAME.prompt(reminders=False)
    assert scenario_class("AnimalSounds") is AnimalSounds
    assert [rule.behavior for rule in AnimalSounds.rules] == ["AnimalSounds"]
