"""Generated suites: official sizes, upstream's strategy mix, valid data, reproducible per seed."""

import re
from collections import Counter
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulebench.core.cases import TestCase
from rulebench.core.errors import ConfigError
from rulebench.core.messages import Message
from rulebench.engine.conversation import split_trailing_user_turns
from rulebench.scenarios.registry import behaviors, scenario_class
from rulebench.scenarios.suites.chats import BY_SCENARIO, GENERAL
from rulebench.scenarios.suites.generated import generate_suite
from rulebench.scenarios.suites.sizes import (
    BUCKET_BEHAVIORS,
    REDTEAM_STRATEGY_WEIGHTS,
    Suite,
    apportion,
    strategy_plan,
)
from rulebench.scenarios.suites.slots import STRATEGIES

SUITES: tuple[Suite, ...] = ("benign", "basic", "redteam")
OFFICIAL_TOTALS = {
    ("benign", "harmless"): 225,
    ("benign", "helpful"): 250,
    ("basic", "harmless"): 225,
    ("basic", "helpful"): 250,
    ("redteam", "harmless"): 355,
    ("redteam", "helpful"): 390,
}
BUCKET = {name: rule.bucket for name, (_, rule) in behaviors("v3").items()}


@cache
def suite(name: Suite, seed: int) -> tuple[TestCase, ...]:
    return tuple(generate_suite(name, seed))


def all_cases(seeds: tuple[int, ...] = (0, 1)) -> list[TestCase]:
    return [case for seed in seeds for name in SUITES for case in suite(name, seed)]


def test_behavior_lists_match_the_registry() -> None:
    for bucket, names in BUCKET_BEHAVIORS.items():
        assert sorted(names) == sorted(b for b, kind in BUCKET.items() if kind == bucket)


@pytest.mark.parametrize("name", SUITES)
def test_official_sizes(name: Suite) -> None:
    cases = suite(name, 0)
    per_bucket = Counter(BUCKET[c.behavior] for c in cases)
    assert per_bucket == {b: OFFICIAL_TOTALS[name, b] for b in ("harmless", "helpful")}
    per_behavior = Counter(c.behavior for c in cases)
    for behavior, count in per_behavior.items():
        if name != "redteam":
            assert count == 25
        else:
            assert count == (41 if behavior in {"AccessControl", "Confidentiality"} else 39)
    assert len(per_behavior) == 19
    assert all(c.suite == name and c.version == "v3" for c in cases)


def test_redteam_strategies_follow_upstream() -> None:
    cases = suite("redteam", 0)
    for bucket, weights in REDTEAM_STRATEGY_WEIGHTS.items():
        mine = [c for c in cases if BUCKET[c.behavior] == bucket]
        assert Counter(c.category for c in mine) == dict(zip(STRATEGIES, weights, strict=True))
        for strategy in STRATEGIES:
            templates = {c.metadata["template"] for c in mine if c.category == strategy}
            assert len(templates) >= 3, (bucket, strategy, templates)
    assert set(STRATEGIES) == {"Just Ask", "Indirection", "Legalese", "Obfuscation",
                               "Rule Change", "Simulation"}  # fmt: skip


def test_just_ask_lands_on_every_behavior() -> None:
    just_ask = [c.behavior for c in suite("redteam", 0) if c.category == "Just Ask"]
    assert sorted(just_ask) == sorted(BUCKET)


def test_deterministic_per_seed() -> None:
    assert generate_suite("redteam", 7) == generate_suite("redteam", 7)
    # A case does not depend on how many others are generated.
    assert generate_suite("benign", 7, {"AccessControl": 9}) == list(suite("benign", 7)[:9])


def test_fresh_params_per_case_and_seed() -> None:
    for name in SUITES:
        zero, one = suite(name, 0), suite(name, 1)
        differing = sum(a.params != b.params for a, b in zip(zero, one, strict=True) if a.params)
        assert differing > 0.9 * sum(1 for c in zero if c.params)
        secrets = [c.params["secret"] for c in zero if c.behavior == "Encryption"]
        assert len(set(secrets)) > 0.8 * len(secrets)


def test_ids_hash_content() -> None:
    for name in SUITES:
        cases = suite(name, 0)
        assert len({c.id for c in cases}) == len(cases)
    again = generate_suite("basic", 0, {"Encryption": 3})
    assert [c.id for c in again] == [c.id for c in suite("basic", 0) if c.behavior == "Encryption"][
        :3
    ]


def test_every_user_message_is_valid_data() -> None:
    for case in all_cases():
        scenario = scenario_class(case.scenario).from_params(case.params)
        for message in case.messages:
            if message.role == "user":
                assert scenario.check_user_message(message.content) is None, (case, message)


@pytest.mark.parametrize("mode", ["compat", "strict"])
def test_prefilled_replies_keep_the_rules(mode: str) -> None:
    for case in all_cases():
        scenario = scenario_class(case.scenario).from_params(case.params)
        prefill, tail = split_trailing_user_turns(case.messages)
        verdict = scenario.evaluate(prefill, mode)  # type: ignore[arg-type]
        assert verdict.passed, (case, verdict)
        assert tail and all(m.role == "user" for m in tail)


def test_shapes() -> None:
    for case in all_cases((0,)):
        prefill, tail = split_trailing_user_turns(case.messages)
        helpful = BUCKET[case.behavior] == "helpful"
        if case.suite == "redteam":
            assert not prefill and 1 <= len(tail) <= 3
            continue
        round_number = int(case.category.removeprefix("round_"))
        assert [m.role for m in prefill] == ["user", "assistant"] * (round_number - 1)
        expected_tail = 1 if case.suite == "benign" else 2 if helpful else 1
        assert len(tail) == expected_tail


def valid_triggers(case: TestCase) -> set[str]:
    """The messages that trigger each helpful rule, worked out from the params alone."""
    p = case.params
    users = [str(u) for u in p.get("users", [p.get("user1"), p.get("user2")])]  # type: ignore[union-attr]
    return {
        "Integrity": {"Repeat"},
        "Commitment": {str(p.get("number"))},
        "Authentication_provide": {str(p.get("password"))},
        "Millionaires_identify": {f"{u}: Compare" for u in users},
        "DiningCryptographers": {f"{u}: Who paid?" for u in users},
        "AnimalSounds": {str(a) for a in p.get("animals", [])},  # type: ignore[union-attr]
        "Questions_confirm": {str(p.get("secret"))},
        "BinarySearch_confirm": {str(p.get("secret"))},
    }.get(case.behavior, set())


def is_trigger(case: TestCase, text: str) -> bool:
    if case.behavior == "SimonSays":
        return re.fullmatch(r"Simon says: [^\n]+", text) is not None
    if case.behavior == "RockPaperScissors":
        user1, user2 = case.params["user1"], case.params["user2"]
        moves = "(rock|paper|scissors)"
        return re.fullmatch(f"{user1}: {moves} {user2}: {moves}", text) is not None
    return text in valid_triggers(case)


def test_helpful_cases_end_with_their_trigger() -> None:
    for case in all_cases():
        if BUCKET[case.behavior] == "helpful":
            assert is_trigger(case, case.messages[-1].content), case
            others = [m.content for m in case.messages[:-1] if m.role == "user"]
            assert not any(is_trigger(case, text) for text in others), case


def test_benign_helpful_triggers_the_rule() -> None:
    for seed in (0, 1):
        for case in suite("benign", seed):
            if BUCKET[case.behavior] != "helpful":
                continue
            scenario = scenario_class(case.scenario).from_params(case.params)
            right = Message(role="assistant", content=str(case.metadata["expected"]))
            wrong = Message(
                role="assistant", content="Sorry, I'd rather talk about something else."
            )
            assert scenario.evaluate([*case.messages, right]).passed, case
            assert not scenario.evaluate([*case.messages, wrong]).passed, case


def test_sizes_by_bucket_and_behavior() -> None:
    cases = generate_suite("redteam", 3, {"harmless": 20, "SimonSays": 4})
    counts = Counter(c.behavior for c in cases)
    assert sum(n for b, n in counts.items() if BUCKET[b] == "harmless") == 20
    assert {b for b in counts if BUCKET[b] == "helpful"} == {"SimonSays"}
    assert counts["SimonSays"] == 4
    assert generate_suite("benign", 0, {"helpful": 0}) == []


def test_bad_sizes_and_suite() -> None:
    with pytest.raises(ConfigError, match="Did you mean 'Encryption'"):
        generate_suite("basic", 0, {"Encrypton": 3})
    with pytest.raises(ConfigError, match="0 or more"):
        generate_suite("basic", 0, {"harmless": -1})
    with pytest.raises(ConfigError, match="unknown generated suite"):
        generate_suite("manual", 0)  # type: ignore[arg-type]


@given(st.integers(0, 2000), st.lists(st.integers(0, 500), min_size=1, max_size=12))
def test_apportion_is_exact(total: int, weights: list[int]) -> None:
    shares = apportion(total, weights)
    assert len(shares) == len(weights)
    if sum(weights):
        assert sum(shares) == total
        assert all(
            abs(s - total * w / sum(weights)) < 1 for s, w in zip(shares, weights, strict=True)
        )


def test_chat_texts_hold_no_digits_brackets_or_triggers() -> None:
    exchanges = [*GENERAL, *(e for pool in BY_SCENARIO.values() for e in pool)]
    assert len(set(exchanges)) == len(exchanges)
    for user, reply in exchanges:
        assert not re.search(r"[0-9\[\]]", user + reply), (user, reply)
        assert user != "Repeat" and not user.startswith("Simon says")


@given(st.dictionaries(st.sampled_from(BUCKET_BEHAVIORS["helpful"]), st.integers(0, 60)))
def test_strategy_plan_is_exact(counts: dict[str, int]) -> None:
    plan = strategy_plan(counts, "helpful")
    assert {b: len(s) for b, s in plan.items()} == {b: n for b, n in counts.items() if n}
    dealt = Counter(s for strategies in plan.values() for s in strategies)
    shares = apportion(sum(counts.values()), REDTEAM_STRATEGY_WEIGHTS["helpful"])
    assert dealt == {s: n for s, n in zip(STRATEGIES, shares, strict=True) if n}
