"""IRFT examples: seeded, oracle-checked, and held-out rules kept out of training."""

import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebench.core.errors import ConfigError
from rulebench.core.rules import rule_text
from rulebench.core.validation import validate_into
from rulebench.inferential.tasks import stringgame
from rulebench.train.examples import (
    DataConfig,
    TrainingExample,
    build_examples,
    rule_library,
    split_rules,
)

SMALL = DataConfig(limit=60, per_group=20, seed=3)


def assert_oracle_agrees(example: TrainingExample) -> None:
    """Exactly one listed rule applies, the golden one, where the target says, with the answer."""
    applying = [r for r in example.rule_ids if stringgame.applies(r, example.string)]
    assert applying == [example.golden_rule]
    assert example.rule_ids[example.position - 1] == example.golden_rule
    assert str(stringgame.execute(example.golden_rule, example.string)) == example.answer
    assert example.completion == stringgame.target_text(example.position, example.answer)
    assert 1 <= len(example.rule_ids) <= 4


def test_same_config_same_examples_other_seed_others() -> None:
    first = build_examples(SMALL)
    assert first == build_examples(SMALL)
    other = build_examples(SMALL.model_copy(update={"seed": 4}))
    assert [e.id for e in other["train"]] != [e.id for e in first["train"]]


def test_split_sizes_and_unique_ids() -> None:
    built = build_examples(SMALL)
    assert {split: len(rows) for split, rows in built.items()} == {
        "train": 60,
        "test": 20,
        "heldout": 20,
    }
    ids = [e.id for rows in built.values() for e in rows]
    assert len(ids) == len(set(ids))


def test_every_example_passes_the_oracle() -> None:
    for rows in build_examples(SMALL).values():
        for example in rows:
            assert_oracle_agrees(example)


def test_target_is_the_papers_form() -> None:
    [example, *_] = build_examples(SMALL)["train"]
    assert re.fullmatch(
        r"Based on the (first|second|third|fourth) rule, the answer is -?\d+\.", example.completion
    )


def test_heldout_rules_never_appear_in_training() -> None:
    rules = rule_library()
    heldout = split_rules(rules, SMALL.heldout_fraction, SMALL.seed)
    assert len(heldout) == round(0.2 * len(rules))
    built = build_examples(SMALL)
    for example in built["train"] + built["test"]:
        assert not heldout.intersection(example.rule_ids)
    assert all(e.golden_rule in heldout for e in built["heldout"])


def test_test_strings_were_not_seen_in_training() -> None:
    built = build_examples(SMALL)
    train = {e.string for e in built["train"]}
    assert not train & {e.string for e in built["test"] + built["heldout"]}


def test_test_splits_do_not_move_with_the_training_size() -> None:
    small, large = build_examples(SMALL), build_examples(SMALL.model_copy(update={"limit": 70}))
    assert small["train"] == large["train"][:60]
    assert [e.id for e in small["heldout"]] == [e.id for e in large["heldout"]]


def test_noise_covers_zero_to_three_rules() -> None:
    built = build_examples(DataConfig(limit=200, per_group=0, heldout_fraction=0.0))
    assert set(built) == {"train", "test"} and built["test"] == []
    counts = Counter(len(e.rule_ids) - 1 for e in built["train"])
    assert set(counts) == {0, 1, 2, 3}
    assert Counter(e.position for e in built["train"] if len(e.rule_ids) == 4).keys() == {
        1,
        2,
        3,
        4,
    }


def test_prompt_holds_the_string_and_the_rules_in_order() -> None:
    rules = rule_library()
    for form in ("nl", "fol"):
        config = SMALL.model_copy(update={"form": form, "limit": 5, "per_group": 0})
        for example in build_examples(config)["train"]:
            assert f"Input: {example.string}" in example.prompt
            for number, rule_id in enumerate(example.rule_ids, 1):
                assert (
                    f"Rule {number}: {rule_text(rules[rule_id], form)}\n" in example.prompt + "\n"
                )


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), fraction=st.sampled_from([0.0, 0.1, 0.5]))
def test_any_seed_gives_oracle_checked_examples(seed: int, fraction: float) -> None:
    config = DataConfig(limit=8, per_group=4, seed=seed, heldout_fraction=fraction)
    for rows in build_examples(config).values():
        for example in rows:
            assert_oracle_agrees(example)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"limit": 0}, "limit: Input should be greater than or equal to 1"),
        ({"heldout_fraction": 1.5}, "heldout_fraction: Input should be less than or equal to 0.9"),
        ({"form": "prolog"}, "form: Input should be 'nl' or 'fol'"),
    ],
)
def test_bad_options_are_one_line_config_errors(values: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        validate_into(DataConfig, values, "train data")
    assert str(caught.value) == f"train data: {message}"
