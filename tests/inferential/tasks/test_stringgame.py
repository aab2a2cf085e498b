"""StringGame generation, the symbolic oracle and the IRFT prompt helpers."""

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from rulebench.core.errors import DataError
from rulebench.core.rules import Sample, TaskData
from rulebench.inferential.tasks.stringgame import (
    StringGameConfig,
    applies,
    check_sample,
    describe,
    execute,
    find_rule,
    generate,
    noise_rules,
    ordinal,
    target_text,
    training_prompt,
)
from rulebench.inferential.tasks.stringgame.rules import LIBRARY

POOL = StringGameConfig(rule_pool=30)


def check_full_sample(sample: Sample, task: TaskData, noise: tuple[int, int]) -> None:
    s = sample.question
    assert sample.metadata["string"] == s and s.isalpha() and s.isupper()
    applicable = sample.metadata["applicable_rules"]
    assert applicable == [rule_id for rule_id in task.rules if applies(rule_id, s)]
    assert sample.golden_rule in applicable
    noise_ids = noise_rules(sample)
    assert noise[0] <= len(noise_ids) <= noise[1]
    assert len(set(noise_ids)) == len(noise_ids) and not set(noise_ids) & set(applicable)
    check_sample(sample, [sample.golden_rule, *noise_ids])
    assert sample.gold == str(execute(sample.golden_rule, s))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_golden_plus_noise_rules_always_leave_exactly_one_applying_rule(seed: int) -> None:
    task = generate(600, seed)
    assert task.name == "stringgame" and len(task.samples) == 600
    assert set(task.rules) == set(LIBRARY)
    for sample in (*task.samples, *task.demos):
        check_full_sample(sample, task, (0, 3))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_rule_pool_listed_whole_has_exactly_one_applying_rule(seed: int) -> None:
    task = generate(250, seed, POOL)
    assert len(task.rules) == 30
    for sample in (*task.samples, *task.demos):
        check_sample(sample, list(task.rules))
        assert sample.metadata["applicable_rules"] == [sample.golden_rule]
        assert set(noise_rules(sample)) <= set(task.rules)


def test_generation_is_deterministic_and_a_prefix_of_a_longer_run() -> None:
    assert generate(40, 9) == generate(40, 9)
    assert generate(40, 9, POOL) == generate(40, 9, POOL)
    assert generate(15, 9).samples == generate(40, 9).samples[:15]
    assert generate(40, 9).samples != generate(40, 10).samples
    assert list(generate(5, 9, POOL).rules) != list(generate(5, 10, POOL).rules)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**40), st.integers(0, 4))
def test_same_seed_gives_same_ids(seed: int, n: int) -> None:
    first, second = generate(n, seed), generate(n, seed)
    assert [s.id for s in first.samples] == [s.id for s in second.samples]
    assert [s.id for s in first.demos] == [s.id for s in second.demos]


def test_demos_are_disjoint_from_the_samples_and_ids_are_unique() -> None:
    task = generate(300, 4, StringGameConfig(demo_count=5))
    assert len(task.demos) == 5
    assert not {d.question for d in task.demos} & {s.question for s in task.samples}
    ids = [s.id for s in (*task.samples, *task.demos)]
    assert len(set(ids)) == len(ids)


def test_golden_rules_are_spread_over_the_library() -> None:
    counts = Counter(sample.golden_rule for sample in generate(1000, 5).samples)
    assert len(counts) > 120
    assert max(counts.values()) < 40


@pytest.mark.parametrize("noise", [(0, 0), (3, 3), (1, 2)])
def test_noise_counts_follow_the_range(noise: tuple[int, int]) -> None:
    counts = {len(noise_rules(s)) for s in generate(60, 2, StringGameConfig(noise=noise)).samples}
    assert counts == set(range(noise[0], noise[1] + 1))


def test_lengths_follow_the_configured_range_even_single_letters() -> None:
    task = generate(50, 1, StringGameConfig(min_len=1, max_len=3))
    assert {len(s.question) for s in task.samples} <= {1, 2, 3}
    for sample in task.samples:
        check_full_sample(sample, task, (0, 3))


@pytest.mark.parametrize(
    "options",
    [{"min_len": 8, "max_len": 5}, {"noise": (2, 1)}, {"rule_pool": 0}, {"rule_pool": 10_000}],
)
def test_bad_configs_are_rejected(options: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        StringGameConfig.model_validate(options)


def test_negative_sample_count_is_an_error() -> None:
    with pytest.raises(DataError, match="-1"):
        generate(-1, 0)


def test_unknown_rule_ids_name_the_closest_one() -> None:
    with pytest.raises(DataError, match="Did you mean 'sg-012'"):
        find_rule("sg-12")
    with pytest.raises(DataError, match="unknown rule id"):
        execute("nope", "ABC")


def test_check_sample_rejects_ambiguous_lists_and_wrong_gold() -> None:
    sample = generate(30, 3).samples[0]
    applicable = sample.metadata["applicable_rules"]
    assert isinstance(applicable, list)
    others = [rule_id for rule_id in applicable if rule_id != sample.golden_rule]
    if others:
        with pytest.raises(DataError, match="expected only"):
            check_sample(sample, [sample.golden_rule, str(others[0])])
    with pytest.raises(DataError, match="not among"):
        check_sample(sample, noise_rules(sample))
    with pytest.raises(DataError, match="gold is 999"):
        check_sample(sample.model_copy(update={"gold": "999"}), [sample.golden_rule])


def test_training_prompt_places_the_golden_rule_where_it_says() -> None:
    task = generate(40, 6, StringGameConfig(noise=(3, 3)))
    positions = set()
    for sample in task.samples:
        texts, position = training_prompt(sample, task.rules, random.Random(sample.id))
        assert len(texts) == 4 and texts[position - 1] == task.rules[sample.golden_rule].nl
        assert (texts, position) == training_prompt(sample, task.rules, random.Random(sample.id))
        positions.add(position)
        fol, _ = training_prompt(sample, task.rules, random.Random(0), form="fol")
        assert all("=>" in text for text in fol)
    assert positions == {1, 2, 3, 4}


def test_training_prompt_needs_every_rule_in_the_rule_set() -> None:
    sample = generate(1, 0, StringGameConfig(noise=(1, 1))).samples[0]
    with pytest.raises(DataError, match="not in the rule set"):
        training_prompt(sample, {}, random.Random(0))


def test_target_text_follows_the_paper() -> None:
    assert target_text(1, "12") == "Based on the first rule, the answer is 12."
    assert [ordinal(n) for n in (2, 4, 10, 11, 12, 13, 21, 22, 23, 101, 112)] == [
        *("second", "fourth", "tenth", "11th", "12th", "13th"),
        *("21st", "22nd", "23rd", "101st", "112th"),
    ]


def test_describe_names_string_rule_and_answer() -> None:
    sample = generate(1, 0).samples[0]
    text = describe(sample)
    assert sample.question in text and find_rule(sample.golden_rule).nl in text
    assert f"Answer: {sample.gold}" in text
