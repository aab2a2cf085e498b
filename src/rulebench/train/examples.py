"""IRFT training examples from the StringGame generator, each checked by the symbolic oracle.

An example is one input string, its golden rule and 0-3 rules that do not apply, shuffled, with
the paper's target "Based on the j-th rule, the answer is X." (appendix G.4). A seeded part of the
rule library is held out: those rules never appear in training (neither golden nor noise), and
the held-out split tests whether rule following learned on the others carries over to them. By
default whole rules are held out, so most held-out rules pair a condition and an output that
training rules also use; `heldout_by="composition"` holds out the conditions and outputs
themselves (see `stringgame.rules.heldout`).
"""

import random
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from rulebench.core.errors import DataError
from rulebench.core.items import content_hash
from rulebench.core.renamed import rename_fields
from rulebench.core.rules import Rule, RuleForm, Sample, rule_text
from rulebench.inferential.tasks import stringgame
from rulebench.inferential.tasks.stringgame.rules.heldout import (
    DEFAULT_HELDOUT_FRACTION,
    HeldOutBy,
    RuleSplit,
    split_library,
)
from rulebench.inferential.tasks.stringgame.rules.library import LIBRARY
from rulebench.inferential.tasks.stringgame.template import TEMPLATE

Split = Literal["train", "test", "heldout"]
"""train: training rules only; test: unseen strings, training rules (in-distribution);
heldout: unseen strings whose golden rule is held out of training (out-of-distribution; by
rule or by composition, `DataConfig.heldout_by`)."""
SPLITS: tuple[Split, ...] = ("train", "test", "heldout")

NOISE_RANGE = (0, 3)
"""Noise rules per example, inclusive (the paper's 0-3)."""
_GENERATOR = stringgame.StringGameConfig(demo_count=0)
_ANSWER_LINE = 'End with "Based on the N-th rule, the answer is X." where X is a number.'


class DataConfig(BaseModel):
    """What `rulebench train data` builds: sizes, seed, rule form and the held-out rules."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    limit: int = Field(default=2000, ge=1, le=1_000_000)
    """Training examples (formerly `size`)."""
    per_group: int = Field(default=200, ge=0, le=100_000)
    """Examples in each test split (in-distribution, and held-out rules when there are any;
    formerly `test_size`)."""
    seed: int = 0
    form: RuleForm = "nl"
    heldout_fraction: float = Field(default=DEFAULT_HELDOUT_FRACTION, ge=0.0, le=0.9)
    """Share of the rule library kept out of training for the out-of-distribution split."""
    heldout_by: HeldOutBy = "rules"
    """rules: held-out rules may reuse training rules' conditions and outputs; composition:
    they use none of them (mixed rules are left out of both sides)."""

    @model_validator(mode="before")
    @classmethod
    def _old_names(cls, data: Any) -> Any:
        # Manifests of folders written before the rename hold the old names.
        return rename_fields(data, {"size": "limit", "test_size": "per_group"}, "train data")


class TrainingExample(BaseModel):
    """One prompt and target, with what the oracle checked about it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    """A hash of split, string, listed rules and form: never a position."""
    split: Split
    string: str
    golden_rule: str
    rule_ids: tuple[str, ...]
    """The listed rules in prompt order."""
    position: int
    """1-based place of the golden rule among `rule_ids`."""
    answer: str
    form: RuleForm
    prompt: str
    completion: str
    task: str | None = None
    """The benchmark task of an in-domain example (kinship, clutrr...); None for StringGame."""
    quantity: Literal["golden", "few"] | None = None
    """The rule-quantity setting of an in-domain example's prompt; None for StringGame."""

    def to_record(self) -> dict[str, JsonValue]:
        """The JSONL / datasets row: trl's conversational prompt-completion format plus facts.

        Conversational, so the trainer renders it with the model's own chat template: the one
        the hf backend uses when the tuned model is evaluated.
        """
        # exclude_none: StringGame rows keep the columns (and bytes) they had before
        # in-domain data added `task` and `quantity`.
        row: dict[str, JsonValue] = self.model_dump(
            mode="json", exclude={"prompt", "completion"}, exclude_none=True
        )
        row["prompt"] = [{"role": "user", "content": self.prompt}]
        row["completion"] = [{"role": "assistant", "content": self.completion}]
        return row


def render_prompt(rule_texts: list[str], string: str) -> str:
    """The fixed IRFT prompt: task line, numbered rules, the input, the answer format.

    The benchmark's StringGame template, so what is learned transfers to it; only the
    answer line asks for the paper's training target ("the N-th rule").
    """
    word = TEMPLATE.rule_word
    rules = "\n".join(f"{word} {number}: {text}" for number, text in enumerate(rule_texts, 1))
    question = f"{TEMPLATE.question_header}\nInput: {string}"
    return "\n\n".join(
        [TEMPLATE.task_line, f"{TEMPLATE.rules_header}\n{rules}", question, _ANSWER_LINE]
    )


def rule_library() -> dict[str, Rule]:
    """Every StringGame rule by id (a generation of no samples uses the whole library)."""
    return stringgame.generate(0, 0, _GENERATOR).rules


def split_rules(rules: Mapping[str, Rule], fraction: float, seed: int) -> frozenset[str]:
    """The held-out rule ids: a seeded `fraction` of the library, at least one when positive."""
    return split_library({rule_id: LIBRARY[rule_id] for rule_id in rules}, fraction, seed, "rules")[
        0
    ]


def rule_split(config: DataConfig) -> RuleSplit:
    """The held-out (and left-out) rules of a data configuration."""
    return split_library(LIBRARY, config.heldout_fraction, config.seed, config.heldout_by)


def stream_samples(seed: int, first_n: int) -> Iterator[Sample]:
    """StringGame samples of one seed, for as long as they are wanted.

    A larger n extends a smaller one (the generator's prefix property), so generating twice as
    many and skipping what was already yielded continues the same stream.
    """
    done, n = 0, max(first_n, 16)
    while True:
        samples = stringgame.generate(n, seed, _GENERATOR).samples
        yield from samples[done:]
        done, n = n, n * 2


class _Builder:
    """Turns samples into checked examples for one configuration."""

    def __init__(self, rules: dict[str, Rule], split: RuleSplit, config: DataConfig):
        self.rules = rules
        self.heldout = split.heldout
        self.left_out = split.left_out
        self.config = config
        self.all_ids = [rule_id for rule_id in sorted(rules) if rule_id not in split.left_out]
        self.train_ids = [rule_id for rule_id in self.all_ids if rule_id not in split.heldout]
        # training_prompt returns texts; every rule has its own text in either form, so the
        # listed ids are read back from them.
        self.by_text = {rule_text(rule, config.form): rule_id for rule_id, rule in rules.items()}
        if len(self.by_text) != len(rules):
            raise DataError(f"stringgame: two rules share a {config.form} text")

    def example(self, sample: Sample, split: Split) -> TrainingExample:
        """The example of one sample: noise drawn from the split's rules, shuffled, checked."""
        string = sample.question
        pool = self.all_ids if split == "heldout" else self.train_ids
        rng = random.Random(f"irft:{self.config.seed}:{split}:{sample.id}")
        misses = [rule_id for rule_id in pool if not stringgame.applies(rule_id, string)]
        noise = rng.sample(misses, min(rng.randint(*NOISE_RANGE), len(misses)))
        listed = sample.model_copy(update={"metadata": {**sample.metadata, "noise_rules": noise}})
        texts, position = stringgame.training_prompt(listed, self.rules, rng, self.config.form)
        rule_ids = tuple(self.by_text[text] for text in texts)
        self.check(listed, rule_ids, position, split)
        completion = stringgame.target_text(position, sample.gold)
        content: JsonValue = [split, string, list(rule_ids), self.config.form]
        return TrainingExample(
            id=content_hash(content),
            split=split,
            string=string,
            golden_rule=sample.golden_rule,
            rule_ids=rule_ids,
            position=position,
            answer=sample.gold,
            form=self.config.form,
            prompt=render_prompt(texts, string),
            completion=completion,
        )

    def check(self, sample: Sample, rule_ids: tuple[str, ...], position: int, split: Split) -> None:
        """Raise DataError unless the oracle agrees with the example.

        One listed rule applies, the golden one, at `position`, and its output is the gold;
        a training or in-distribution example lists no held-out rule.
        """
        stringgame.check_sample(sample, rule_ids)
        where = f"irft data: sample {sample.id} ({sample.question})"
        if rule_ids[position - 1] != sample.golden_rule:
            raise DataError(f"{where}: rule {position} is {rule_ids[position - 1]}, not golden")
        if split != "heldout" and (leaked := self.heldout.intersection(rule_ids)):
            raise DataError(f"{where}: held-out rules {sorted(leaked)} in the {split} split")
        if leaked := self.left_out.intersection(rule_ids):
            raise DataError(f"{where}: left-out rules {sorted(leaked)} in the {split} split")


def _collect(
    builder: _Builder,
    stream: Iterator[Sample],
    wanted: Mapping[Split, int],
    used: set[str],
    on_example: Callable[[TrainingExample], None],
) -> dict[Split, list[TrainingExample]]:
    """Route samples of a stream into splits until each has what it wants.

    A sample whose golden rule is held out can only go to the held-out split, and a string
    already used (in any split) is skipped, so no test string was seen in training.
    """
    found: dict[Split, list[TrainingExample]] = {split: [] for split in wanted}
    patience = 50 * sum(wanted.values()) + 1000
    for drawn, sample in enumerate(stream):
        missing = [split for split, n in wanted.items() if len(found[split]) < n]
        if not missing:
            break
        if drawn > patience:
            raise DataError(
                f"irft data: {patience} samples gave too few examples for {missing}: lower "
                "--heldout-fraction or the sizes"
            )
        if sample.golden_rule in builder.left_out:
            continue
        split: Split = "heldout" if sample.golden_rule in builder.heldout else "train"
        if split == "train" and "train" not in wanted:
            split = "test"
        if split not in missing or sample.question in used:
            continue
        used.add(sample.question)
        example = builder.example(sample, split)
        found[split].append(example)
        on_example(example)
    return found


def build_examples(
    config: DataConfig, on_example: Callable[[TrainingExample], None] | None = None
) -> dict[Split, list[TrainingExample]]:
    """Every split of a data set; the same config always gives the same examples.

    Training examples come from one seeded stream, both test splits from another, so the test
    splits do not move when only `size` changes (beyond skipping strings training took).
    """
    rules = rule_library()
    split = rule_split(config)
    heldout = split.heldout
    builder = _Builder(rules, split, config)
    report = on_example or (lambda example: None)
    used: set[str] = set()
    train_share = 1.0 - (len(heldout) + len(split.left_out)) / len(rules)
    train_stream = stream_samples(2 * config.seed, int(config.limit / train_share * 1.2) + 16)
    examples = _collect(builder, train_stream, {"train": config.limit}, used, report)
    tests: dict[Split, int] = {"test": config.per_group}
    if heldout:
        tests["heldout"] = config.per_group
    heldout_share = len(heldout) / len(rules)
    eval_stream = stream_samples(
        2 * config.seed + 1, int(config.per_group / (heldout_share or 1)) + 16
    )
    examples.update(_collect(builder, eval_stream, tests, used, report))
    return examples
