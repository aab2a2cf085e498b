"""StringGame: random uppercase strings and "if <condition>, then output <number>" rules.

The synthetic task of the RuleBench paper (appendix G), used for IRFT training data and as an
evaluation task. Every rule is executable, so the gold answer, the set of rules that apply and
the check that a prompt's rule list is unambiguous all come from running the rules: the
symbolic oracle (`applies`, `execute`, `check_sample`).

The package holds the whole task: this generator and its definition, `rules` (the rule
library), `template` (the prompt) and `extraction` (reading the numeric answer).
"""

import difflib
import random
import string
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from rulebench.core.errors import DataError
from rulebench.core.items import ItemIds
from rulebench.core.rules import RuleForm, RuleSet, Sample, TaskData, rule_text
from rulebench.inferential.definition import TaskDefinition
from rulebench.inferential.tasks.stringgame.extraction import JUDGES
from rulebench.inferential.tasks.stringgame.rules import CONVENTIONS, LIBRARY, StringRule
from rulebench.inferential.tasks.stringgame.rules.heldout import (
    DEFAULT_HELDOUT_FRACTION,
    HeldOutBy,
    split_library,
)
from rulebench.inferential.tasks.stringgame.template import TEMPLATE

__all__ = [
    "CONVENTIONS",
    "TASK",
    "StringGameConfig",
    "applies",
    "check_sample",
    "describe",
    "execute",
    "find_rule",
    "generate",
    "generate_heldout",
    "noise_rules",
    "ordinal",
    "target_text",
    "training_prompt",
]

TASK = "stringgame"
_ALPHABET = string.ascii_uppercase
_ORDINALS: tuple[str, ...] = (
    *("first", "second", "third", "fourth", "fifth"),
    *("sixth", "seventh", "eighth", "ninth", "tenth"),
)
_MAX_TRIES = 50_000
"""Strings drawn per sample before giving up; a 30-rule pool needs about 20 on average."""


class StringGameConfig(BaseModel):
    """How StringGame samples are drawn (everything but their number and the seed)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_len: int = Field(default=6, ge=1)
    max_len: int = Field(default=20, ge=1)
    noise: tuple[int, int] = (0, 3)
    """Inclusive range of the number of non-applying rules stored per sample (IRFT prompts)."""
    rule_pool: int | None = Field(default=None, ge=1, le=len(LIBRARY))
    """Restrict the rule set to a seeded subset of this size and keep only strings for which
    exactly one rule of it applies, so listing the whole pool is unambiguous (the all-rule
    setting, the shared layout). None: the whole library, any number of rules may apply."""
    demo_count: int = Field(default=3, ge=0)
    golden_rules: frozenset[str] | None = None
    """Only these rules may be a sample's golden rule (a held-out split's rules, see
    `stringgame.rules.heldout`); the others still apply and serve as noise. None: any rule."""

    @model_validator(mode="after")
    def _check_ranges(self) -> "StringGameConfig":
        if self.min_len > self.max_len:
            raise ValueError(f"min_len {self.min_len} is greater than max_len {self.max_len}")
        low, high = self.noise
        if not 0 <= low <= high:
            raise ValueError(f"noise range {self.noise} must satisfy 0 <= low <= high")
        return self


def find_rule(rule_id: str) -> StringRule:
    """A library rule by id; an unknown id is a DataError with the closest known id."""
    if rule_id in LIBRARY:
        return LIBRARY[rule_id]
    digits = rule_id.rpartition("-")[2]
    padded = f"sg-{int(digits):03d}" if digits.isdigit() else ""
    close = [padded] if padded in LIBRARY else difflib.get_close_matches(rule_id, LIBRARY, n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    raise DataError(
        f"stringgame: unknown rule id '{rule_id}'.{hint} Ids run sg-001..sg-{len(LIBRARY):03d}"
    )


def applies(rule_id: str, s: str) -> bool:
    """Whether the rule's condition holds for the string."""
    return find_rule(rule_id).condition.holds(s)


def execute(rule_id: str, s: str) -> int | None:
    """The rule's output for the string, None when its condition does not hold."""
    return find_rule(rule_id).execute(s)


def _sample_string(sample: Sample) -> str:
    value = sample.metadata.get("string", sample.question)
    return value if isinstance(value, str) else sample.question


def check_sample(sample: Sample, listed_rule_ids: Iterable[str]) -> None:
    """Raise DataError unless exactly one listed rule applies: the golden one, yielding the gold.

    This is the property every prompt built from a sample must have: whatever rules it lists,
    a reader who applies them all finds one answer, the gold.
    """
    s = _sample_string(sample)
    listed = list(listed_rule_ids)
    where = f"stringgame: sample {sample.id} ({s})"
    if sample.golden_rule not in listed:
        raise DataError(f"{where}: golden rule {sample.golden_rule} is not among {listed}")
    hits = [rule_id for rule_id in listed if applies(rule_id, s)]
    if hits != [sample.golden_rule]:
        raise DataError(f"{where}: expected only {sample.golden_rule} to apply, got {hits}")
    value = execute(sample.golden_rule, s)
    if str(value) != sample.gold:
        raise DataError(f"{where}: rule {sample.golden_rule} gives {value}, gold is {sample.gold}")


def select_pool(seed: int, size: int | None) -> tuple[StringRule, ...]:
    """The rules a generation uses: the whole library, or a seeded subset in library order."""
    if size is None:
        return tuple(LIBRARY.values())
    chosen = set(random.Random(f"{TASK}:{seed}:pool").sample(sorted(LIBRARY), size))
    return tuple(rule for rule_id, rule in LIBRARY.items() if rule_id in chosen)


class _Draw:
    """Draws strings and their applicable rules from one pool of rules.

    Rules that share a condition are grouped so that each condition is tested once per string
    (the library pairs most conditions with two outputs).
    """

    def __init__(self, pool: Sequence[StringRule], config: StringGameConfig) -> None:
        self.pool = pool
        self.config = config
        groups: dict[str, list[StringRule]] = {}
        for rule in pool:
            groups.setdefault(rule.condition.key, []).append(rule)
        self.groups = [(rules[0].condition.holds, rules) for rules in groups.values()]
        self.order = {rule.id: index for index, rule in enumerate(pool)}
        self.allowed = config.golden_rules

    def goldens(self, hits: list[StringRule]) -> list[StringRule]:
        """The applicable rules that may be golden (all, unless the config restricts them)."""
        if self.allowed is None:
            return hits
        return [rule for rule in hits if rule.id in self.allowed]

    def applicable(self, s: str) -> list[StringRule]:
        """The pool's rules whose condition holds for `s`, in library order."""
        hits = [rule for holds, rules in self.groups if holds(s) for rule in rules]
        return sorted(hits, key=lambda rule: self.order[rule.id])

    def draw_string(
        self, rng: random.Random, exclude: frozenset[str]
    ) -> tuple[str, list[StringRule]]:
        """A random string that some rule (exactly one, with a pool) applies to."""
        for _ in range(_MAX_TRIES):
            length = rng.randint(self.config.min_len, self.config.max_len)
            s = "".join(rng.choices(_ALPHABET, k=length))
            hits = self.applicable(s) if s not in exclude else []
            usable = (len(hits) == 1) if self.config.rule_pool is not None else bool(hits)
            if usable and self.goldens(hits):
                return s, hits
        raise DataError(
            f"stringgame: no usable string in {_MAX_TRIES} draws (config {self.config}); "
            "try another seed or a different rule_pool or length range"
        )

    def sample(self, rng: random.Random, ids: ItemIds, exclude: frozenset[str]) -> Sample:
        """One sample: a string, a golden rule drawn uniformly among those that apply, noise."""
        s, hits = self.draw_string(rng, exclude)
        golden = rng.choice(self.goldens(hits))
        hit_ids = [rule.id for rule in hits]
        misses = [rule.id for rule in self.pool if rule.id not in hit_ids]
        noise = rng.sample(misses, min(rng.randint(*self.config.noise), len(misses)))
        gold = str(golden.execute(s))
        metadata: dict[str, JsonValue] = {
            "string": s,
            "applicable_rules": [*hit_ids],
            "noise_rules": [*noise],
        }
        content: dict[str, JsonValue] = {"task": TASK, "golden_rule": golden.id, **metadata}
        return Sample(
            id=ids(content),
            task=TASK,
            question=s,
            gold=gold,
            golden_rule=golden.id,
            metadata=metadata,
        )


def generate(n: int, seed: int, config: StringGameConfig | None = None) -> TaskData:
    """`n` StringGame samples, their rule set and `config.demo_count` demonstrations.

    The same arguments always give the same TaskData. Samples come from one seeded stream, so a
    smaller `n` gives a prefix of a larger one; demonstrations come from a stream of their own
    and never share a string with the samples.
    """
    config = config or StringGameConfig()
    if n < 0:
        raise DataError(f"stringgame: cannot generate {n} samples")
    pool = select_pool(seed, config.rule_pool)
    draw = _Draw(pool, config)
    ids = ItemIds()
    rng = random.Random(f"{TASK}:{seed}:samples")
    samples = tuple(draw.sample(rng, ids, frozenset()) for _ in range(n))
    taken = frozenset(sample.question for sample in samples)
    demo_rng = random.Random(f"{TASK}:{seed}:demos")
    demos = tuple(draw.sample(demo_rng, ids, taken) for _ in range(config.demo_count))
    return TaskData(
        name=TASK,
        samples=samples,
        rules={rule.id: rule.to_rule() for rule in pool},
        demos=demos,
    )


def generate_heldout(n: int, seed: int, by: HeldOutBy) -> TaskData:
    """`n` samples whose golden rules are the held-out ones of the IRFT split `by`, seed `seed`.

    The split is the one `rulebench train data --seed SEED --heldout-by BY` keeps out of
    training (at the default fraction), so a tuned model meets exactly the rules it never
    trained on; every rule may still be listed as noise.
    """
    split = split_library(LIBRARY, DEFAULT_HELDOUT_FRACTION, seed, by)
    return generate(n, seed, StringGameConfig(golden_rules=split.heldout))


def describe(sample: Sample) -> str:
    """A few lines for a person reading a sample: string, golden rule, answer, other rules."""
    rule = find_rule(sample.golden_rule)
    applicable = sample.metadata.get("applicable_rules", [])
    noise = sample.metadata.get("noise_rules", [])
    return "\n".join(
        [
            f"String: {_sample_string(sample)}",
            f"Golden rule {rule.id}: {rule.nl}",
            f"Answer: {sample.gold}",
            f"Rules that apply: {applicable}",
            f"Noise rules: {noise}",
        ]
    )


def noise_rules(sample: Sample) -> list[str]:
    """The ids of the non-applying rules stored with a sample for IRFT prompts."""
    value = sample.metadata.get("noise_rules", [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise DataError(
            f"stringgame: sample {sample.id}: metadata 'noise_rules' is not a list of ids"
        )
    return [item for item in value if isinstance(item, str)]


def training_prompt(
    sample: Sample, rules: RuleSet, rng: random.Random, form: RuleForm = "nl"
) -> tuple[list[str], int]:
    """The rule texts of an IRFT prompt and the 1-based position of the golden rule among them.

    The texts are the golden rule and the sample's noise rules, shuffled by `rng`.
    """
    listed = [sample.golden_rule, *noise_rules(sample)]
    rng.shuffle(listed)
    for rule_id in listed:
        if rule_id not in rules:
            raise DataError(
                f"stringgame: sample {sample.id}: rule {rule_id} is not in the rule set"
            )
    texts = [rule_text(rules[rule_id], form, TASK) for rule_id in listed]
    return texts, listed.index(sample.golden_rule) + 1


def ordinal(position: int) -> str:
    """The ordinal word for a 1-based position: first ... tenth, then 11th, 21st, 22nd, ..."""
    if 1 <= position <= len(_ORDINALS):
        return _ORDINALS[position - 1]
    suffix = (
        "th"
        if position % 100 in (11, 12, 13)
        else {1: "st", 2: "nd", 3: "rd"}.get(position % 10, "th")
    )
    return f"{position}{suffix}"


def target_text(position: int, answer: str) -> str:
    """The IRFT training target the paper uses: which rule applied, then the answer."""
    return f"Based on the {ordinal(position)} rule, the answer is {answer}."


STRINGGAME = TaskDefinition(
    name=TASK,
    summary="Generated StringGame: 187 string rules (NL, FOL, Python), the IRFT training domain",
    template=TEMPLATE,
    judges=JUDGES,
    generate=generate,
    has_candidates=False,
)
