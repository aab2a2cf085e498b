"""The kinship generator: determinism, hop ranges, stories true to the tree, rules, splits."""

import json
import os
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulebench.core.errors import ConfigError
from rulebench.core.items import content_hash
from rulebench.core.rules import Sample, TaskData, check_rules_exist
from rulebench.inferential.tasks.kinship import generate, pattern_split
from rulebench.inferential.tasks.kinship.library import MIN_RULES, NOISE_NEEDED
from rulebench.inferential.tasks.kinship.oracle import check_tree
from rulebench.inferential.tasks.kinship.relations import (
    ANSWER_LABELS,
    CF_LABELS,
    EDGE_RELATIONS,
    RELATION_GENDER,
)
from rulebench.inferential.tasks.kinship.rules import fol_text, nl_text, parse_fol


def _fingerprint(task: TaskData) -> str:
    return content_hash(task.model_dump(mode="json"))


def test_same_arguments_same_task() -> None:
    first = generate(25, 7, max_hops=6, distractors=1)
    again = generate(25, 7, max_hops=6, distractors=1)
    assert first == again


@pytest.mark.subprocess
def test_same_task_in_another_process_with_other_hash_seed() -> None:
    # Set iteration order changes with PYTHONHASHSEED: output must not depend on it.
    code = (
        "from rulebench.core.items import content_hash;"
        "from rulebench.inferential.tasks.kinship import generate;"
        "print(content_hash(generate(15, 3).model_dump(mode='json')))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == _fingerprint(generate(15, 3))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**40))
def test_different_seeds_different_samples(seed: int) -> None:
    ids = {s.id for s in generate(5, seed, n_demos=0).samples}
    other = {s.id for s in generate(5, seed + 1, n_demos=0).samples}
    assert len(ids) == 5 and not ids & other


def _check_sample_shape(sample: Sample, task: TaskData) -> None:
    meta = sample.metadata
    pattern = meta["pattern"]
    assert isinstance(pattern, list) and len(pattern) == meta["hops"]
    assert sample.gold in ANSWER_LABELS and sample.cf_gold in CF_LABELS
    assert sample.cf_gold != sample.gold
    assert RELATION_GENDER[str(sample.cf_gold)] == meta["tail_gender"]
    golden = parse_fol(str(task.rules[sample.golden_rule].fol))
    cf = parse_fol(str(task.rules[str(sample.cf_golden_rule)].fol))
    assert list(golden.relations) == pattern and golden.conclusion == sample.gold
    assert cf.premise == golden.premise and cf.conclusion == sample.cf_gold
    applicable = meta["applicable_rules"]
    assert isinstance(applicable, list)
    assert sample.golden_rule in applicable and sample.cf_golden_rule in applicable
    assert len(task.rules) - len(applicable) >= NOISE_NEEDED
    check_tree(sample)  # every fact and the gold hold in the tree; the cf gold does not


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**40),
    hops=st.tuples(st.integers(2, 10), st.integers(2, 10)).map(sorted),
    distractors=st.integers(0, 4),
)
def test_generated_samples_are_consistent(seed: int, hops: list[int], distractors: int) -> None:
    low, high = hops
    task = generate(8, seed, min_hops=low, max_hops=high, distractors=distractors, n_demos=2)
    assert task.name == "kinship" and len(task.samples) == 8 and len(task.demos) == 2
    assert len(task.rules) >= MIN_RULES
    check_rules_exist(task.samples + task.demos, task.rules, "kinship")
    for sample in task.samples + task.demos:
        hops_drawn = sample.metadata["hops"]
        assert isinstance(hops_drawn, int) and low <= hops_drawn <= high
        _check_sample_shape(sample, task)


def _sentences(sample: Sample) -> list[str]:
    story, _, query = sample.question.partition("\n\n")
    meta = sample.metadata
    assert query == f"Who is {meta['tail']} to {meta['head']}?"
    return re.split(r"(?<=\.) ", story)


def test_story_states_every_chain_edge_and_nothing_else() -> None:
    task = generate(60, 21, distractors=3)
    for sample in task.samples:
        facts = sample.metadata["facts"]
        chain = sample.metadata["chain"]
        assert isinstance(facts, list) and isinstance(chain, list)
        assert all(edge in facts for edge in chain)
        sentences = _sentences(sample)
        assert len(sentences) == len(facts)
        for sentence, fact in zip(sentences, facts, strict=True):
            assert isinstance(fact, list)
            a, relation, b = (str(part) for part in fact)
            assert re.search(rf"\b{a}\b", sentence) and re.search(rf"\b{b}\b", sentence)
            words = [w for w in EDGE_RELATIONS if re.search(rf"\b{w}\b", sentence)]
            assert words == [relation], sentence


def test_rule_texts_present_and_read_back() -> None:
    task = generate(30, 5)
    for rule_id, rule in task.rules.items():
        assert rule.id == rule_id and rule.id.startswith("kin-")
        assert rule.nl.startswith("If A has a") and rule.fol is not None
        parsed = parse_fol(rule.fol)
        assert fol_text(parsed) == rule.fol and nl_text(parsed) == rule.nl


def test_shuffled_story_order() -> None:
    task = generate(40, 8)
    in_chain_order = []
    for sample in task.samples:
        facts, chain = sample.metadata["facts"], sample.metadata["chain"]
        assert isinstance(facts, list) and isinstance(chain, list)
        in_chain_order.append(facts[: len(chain)] == chain)
    assert not all(in_chain_order)


def test_train_and_test_streams_are_disjoint() -> None:
    test = generate(40, 9, split="test")
    train = generate(40, 9, split="train")
    assert not {s.question for s in test.samples} & {s.question for s in train.samples}
    assert {s.metadata["split"] for s in train.samples} == {"train"}


def _patterns(samples: tuple[Sample, ...]) -> set[str]:
    return {json.dumps(s.metadata["pattern"]) for s in samples}


def test_split_by_pattern_keeps_patterns_apart() -> None:
    test = generate(60, 4, split="test", split_by_pattern=True)
    train = generate(60, 4, split="train", split_by_pattern=True)
    assert not _patterns(test.samples) & _patterns(train.samples)
    assert not _patterns(test.samples) & _patterns(test.demos)
    for sample in test.samples:
        assert pattern_split(tuple(json.loads(json.dumps(sample.metadata["pattern"])))) == "test"


def test_demos_never_evaluated() -> None:
    task = generate(30, 2, split="train", n_demos=8)
    assert len(task.demos) == 8
    assert not {d.question for d in task.demos} & {s.question for s in task.samples}
    assert {d.metadata["split"] for d in task.demos} == {"train"}


@pytest.mark.parametrize(
    "options",
    [
        {"min_hops": 5, "max_hops": 3},
        {"max_hops": 11},
        {"min_hops": 1},
        {"distractors": -1},
        {"split": "validation"},
        {"hops": 3},
    ],
)
def test_bad_options_are_config_errors(options: dict[str, object]) -> None:
    with pytest.raises(ConfigError, match="kinship"):
        generate(3, 1, **options)  # type: ignore[arg-type]  # wrong options on purpose
