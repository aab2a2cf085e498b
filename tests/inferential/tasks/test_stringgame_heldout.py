"""StringGame held-out splits: by rule (parts shared with training) or by composition (none)."""

import pytest

from rulebench.inferential.tasks.stringgame.rules.heldout import condition_parts, split_library
from rulebench.inferential.tasks.stringgame.rules.library import LIBRARY


def shared_parts(heldout: frozenset[str], training: set[str]) -> int:
    """How many held-out rules reuse a training rule's condition part or its output."""
    conditions = {part for rule_id in training for part in condition_parts(LIBRARY[rule_id])}
    outputs = {LIBRARY[rule_id].output.key for rule_id in training}
    return sum(
        1
        for rule_id in heldout
        if condition_parts(LIBRARY[rule_id]) & conditions or LIBRARY[rule_id].output.key in outputs
    )


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_composition_holds_out_conditions_and_outputs_not_only_rules(seed: int) -> None:
    split = split_library(LIBRARY, 0.2, seed, "composition")
    training = set(LIBRARY) - split.heldout - split.left_out
    assert shared_parts(split.heldout, training) == 0
    assert not split.heldout & split.left_out
    assert len(split.heldout) >= round(0.2 * len(LIBRARY))
    assert len(split.left_out) < len(split.heldout)  # mixing loses few rules
    assert split_library(LIBRARY, 0.2, seed, "composition") == split  # seeded


def test_the_rules_split_reuses_training_parts_as_its_description_says() -> None:
    split = split_library(LIBRARY, 0.2, 0, "rules")
    assert not split.left_out
    assert shared_parts(split.heldout, set(LIBRARY) - split.heldout) > len(split.heldout) // 2


def test_no_fraction_holds_out_nothing() -> None:
    assert split_library(LIBRARY, 0.0, 0, "composition") == (frozenset(), frozenset())
