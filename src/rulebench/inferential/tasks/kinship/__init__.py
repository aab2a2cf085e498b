"""Kinship: a CLUTRR-style task generated from random family trees, deterministic from a seed.

Each sample is a story of kinship facts (a chain of 2 to 10 hops from a head person to a tail
person, shuffled, plus a few true distractor facts) and the question "Who is <tail> to <head>?".
The answer is what the tail is to the head ("<tail> is <head>'s <gold>"), read from the tree.
The golden rule states the chain's composition (see `rules` for its NL and FOL shapes);
the counterfactual twin keeps the premise and concludes another label (`cf_gold`).

Metadata per sample: hops, pattern (the chain's relations), head, tail, head_gender,
tail_gender, label, chain and facts (lists of [a, relation, b]: b is a's relation), genders,
tree (the whole family as name -> gender, father, mother, spouse where known, so the
oracle can re-check the sample from data alone), split, and
applicable_rules: every rule of the set whose premise and gender conditions match the story.
That list includes the sample's golden rule and its counterfactual twin (and any other rule,
factual or not, that matches), so noise drawn outside it never applies, in either setting.
noise_rules and cf_noise_rules: the sample's own noise candidates of each kind (see
`noise`), so its prompts do not change with the number of samples generated.
"""

import random
from typing import Literal, TypedDict, Unpack

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, model_validator

from rulebench.core.errors import ConfigError
from rulebench.core.items import ItemIds, content_hash
from rulebench.core.rules import Sample, TaskData
from rulebench.inferential.tasks.kinship.chain import Instance, PatternFilter, draw_instance
from rulebench.inferential.tasks.kinship.library import RuleLibrary
from rulebench.inferential.tasks.kinship.noise import NoiseStream
from rulebench.inferential.tasks.kinship.oracle import FactBase, Story
from rulebench.inferential.tasks.kinship.relations import CF_LABELS
from rulebench.inferential.tasks.kinship.rules import (
    MAX_HOPS,
    KinRule,
    counterfactual_of,
    is_counterfactual,
    rule_id,
    to_rule,
)
from rulebench.inferential.tasks.kinship.text import render_fact, render_question
from rulebench.inferential.tasks.kinship.tree import tree_to_json

TASK = "kinship"
Split = Literal["train", "test"]


class KinshipOptions(TypedDict, total=False):
    """Keyword options of `generate`; see `KinshipConfig` for what each means."""

    min_hops: int
    max_hops: int
    split: Split
    split_by_pattern: bool
    distractors: int
    n_demos: int


class KinshipConfig(BaseModel):
    """Everything that determines a generated kinship task."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int = Field(ge=0)
    seed: int
    min_hops: int = Field(default=2, ge=2, le=MAX_HOPS)
    max_hops: int = Field(default=10, ge=2, le=MAX_HOPS)
    split: Split = "test"
    """Train and test samples come from disjoint seeded streams."""
    split_by_pattern: bool = False
    """Also keep chain patterns apart: a test pattern never occurs in the train split."""
    distractors: int = Field(default=2, ge=0, le=6)
    """True facts added to each story about people off the chain (fewer if the tree has none)."""
    n_demos: int = Field(default=8, ge=0)
    """Train-split samples for few-shot demonstrations, never one of the evaluated samples."""

    @model_validator(mode="after")
    def _hops_in_order(self) -> "KinshipConfig":
        if self.min_hops > self.max_hops:
            raise ValueError(f"min_hops {self.min_hops} is above max_hops {self.max_hops}")
        return self


class _Draft(BaseModel):
    """A drawn instance with its rendered story and its two rules, before ids are known."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    instance: Instance
    story: Story
    question: str
    rule: KinRule
    cf_rule: KinRule


def generate(n: int, seed: int, **options: Unpack[KinshipOptions]) -> TaskData:
    """Generate `n` kinship samples, their rule set and demonstrations from `seed`.

    Same arguments, same output (ids included). Options: min_hops, max_hops (2..10),
    split ("train" or "test"), split_by_pattern, distractors (per story), n_demos.

    Raises:
        ConfigError: an option is out of range.
    """
    try:
        config = KinshipConfig(n=n, seed=seed, **options)
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in e['loc']) or 'options'}: {e['msg']}"
            for e in err.errors()
        )
        known = ", ".join(KinshipOptions.__annotations__)
        raise ConfigError(f"kinship: {problems} (options: {known})") from err
    accept = _partition(config.split) if config.split_by_pattern else None
    drafts = _drafts(config, _stream(seed, config.split), config.n, accept)
    demo_drafts = _demo_drafts(config, {draft.question for draft in drafts})
    everything = [*drafts, *demo_drafts]
    stream = NoiseStream(
        _stream(seed, "extras"), (config.min_hops, config.max_hops), accept, _rule_of
    )
    pools = [
        stream.candidates(
            FactBase(draft.story), {rule_id(draft.rule), rule_id(draft.cf_rule)}, is_counterfactual
        )
        for draft in everything
    ]
    library = _library(everything, stream)
    rules = library.sorted_rules()
    applicable = library.applicable
    count = len(drafts)
    samples = _samples(drafts, applicable[:count], pools[:count], config.split)
    demos = _samples(demo_drafts, applicable[count:], pools[count:], "train")
    return TaskData(
        name=TASK,
        samples=samples,
        rules={key: to_rule(rule, is_counterfactual(rule)) for key, rule in rules.items()},
        demos=demos,
    )


def _stream(seed: int, name: str) -> random.Random:
    """A generator for one purpose; streams with different names never share draws."""
    return random.Random(int(content_hash([TASK, seed, name]), 16))


def pattern_split(relations: tuple[str, ...]) -> Split:
    """Which split owns a chain pattern when patterns are kept apart (a hash: half each)."""
    return "test" if int(content_hash([TASK, "split", list(relations)]), 16) % 2 else "train"


def _partition(split: Split) -> PatternFilter:
    def accept(relations: tuple[str, ...]) -> bool:
        return pattern_split(relations) == split

    return accept


def _drafts(
    config: KinshipConfig, rng: random.Random, count: int, accept: PatternFilter | None
) -> list[_Draft]:
    drafts = []
    for _ in range(count):
        hops = rng.randint(config.min_hops, config.max_hops)
        instance = draw_instance(rng, hops, config.distractors, accept)
        drafts.append(_draft(instance, rng))
    return drafts


def _demo_drafts(config: KinshipConfig, evaluated: set[str]) -> list[_Draft]:
    """Train-split drafts from their own stream, skipping any story that is being evaluated."""
    accept = _partition("train") if config.split_by_pattern else None
    rng = _stream(config.seed, "demos")
    demos: list[_Draft] = []
    while len(demos) < config.n_demos:
        draft = _drafts(config, rng, 1, accept)[0]
        if draft.question not in evaluated:
            demos.append(draft)
    return demos


def _draft(instance: Instance, rng: random.Random) -> _Draft:
    facts = [*instance.chain, *instance.distractors]
    rng.shuffle(facts)
    genders = {p: instance.gender(p) for a, _, b in facts for p in (a, b)}
    story = Story(head=instance.head, tail=instance.tail, facts=tuple(facts), genders=genders)
    sentences = [render_fact(fact, genders, rng) for fact in facts]
    rule = _rule_of(instance)
    return _Draft(
        instance=instance,
        story=story,
        question=render_question(sentences, instance.head, instance.tail),
        rule=rule,
        cf_rule=counterfactual_of(rule),
    )


def _library(drafts: list[_Draft], stream: NoiseStream) -> RuleLibrary:
    """Every rule a prompt may list, and which of them apply to each story.

    Per-item prompts draw noise from each sample's own candidates; the shared layout draws
    from this whole set, so it is topped up (from the same stream) until every story has
    enough noise of each kind in it.
    """
    rules = [rule for draft in drafts for rule in (draft.rule, draft.cf_rule)]
    stories = [FactBase(draft.story) for draft in drafts]
    library = RuleLibrary(rules, stories, is_counterfactual)
    library.add(stream.rules)
    library.fill(lambda widen: stream.grow())
    return library


def _rule_of(instance: Instance) -> KinRule:
    """The golden rule a drawn chain states."""
    return KinRule(
        relations=instance.relations,
        head_gender=instance.gender(instance.head),
        tail_gender=instance.gender(instance.tail),
        conclusion=instance.label,
    )


def _samples(
    drafts: list[_Draft],
    applicable: list[list[str]],
    pools: list[tuple[list[str], list[str]]],
    split: Split,
) -> tuple[Sample, ...]:
    ids = ItemIds()
    samples = []
    for draft, rule_ids, (noise, cf_noise) in zip(drafts, applicable, pools, strict=True):
        golden = rule_id(draft.rule)
        samples.append(
            Sample(
                id=ids({"task": TASK, "question": draft.question, "golden_rule": golden}),
                task=TASK,
                question=draft.question,
                gold=draft.rule.conclusion,
                golden_rule=golden,
                candidates=CF_LABELS,
                cf_gold=draft.cf_rule.conclusion,
                cf_golden_rule=rule_id(draft.cf_rule),
                metadata=_metadata(draft, sorted(rule_ids), split)
                | {"noise_rules": list(noise), "cf_noise_rules": list(cf_noise)},
            )
        )
    return tuple(samples)


def _metadata(draft: _Draft, applicable: list[str], split: Split) -> dict[str, JsonValue]:
    instance, story = draft.instance, draft.story
    genders: dict[str, JsonValue] = dict(story.genders)
    return {
        "hops": len(instance.chain),
        "pattern": list(instance.relations),
        "head": instance.head,
        "tail": instance.tail,
        "head_gender": draft.rule.head_gender,
        "tail_gender": draft.rule.tail_gender,
        "label": draft.rule.conclusion,
        "chain": [list(fact) for fact in instance.chain],
        "facts": [list(fact) for fact in story.facts],
        "genders": genders,
        "tree": tree_to_json(instance.tree),
        "split": split,
        "applicable_rules": list(applicable),
    }
