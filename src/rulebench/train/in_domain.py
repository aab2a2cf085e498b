"""In-domain IRFT data (paper appendix H): benchmark prompts built from the tasks' train splits.

Each train sample becomes two examples, Golden Rule (only its rule listed) and Few Rule (the
benchmark's few-rule listing: golden plus noise, golden at a seeded position). The prompt is the
benchmark's own zero-shot prompt (`inferential.prompts.render_prompt` on the listing
`rule_lists.list_rules` draws), so the tuned model is trained on exactly what the benchmark later
shows it; the completion is the gold written in the template's answer format, and both of the
task's judges must score it right (kinship: the symbolic oracle also proves the listing).

Sources: the generated kinship task's train split (its own seeded stream, at a seed other than
the evaluation's) and, given a data root, the official train files (clutrr, ulogic, law by
default). A train sample whose question, whitespace normalised, is asked in the evaluated test
split of its task is dropped: every law test input occurs in law train (167 train records).
"""

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rulebench.core.errors import ConfigError, DataError
from rulebench.core.items import content_hash
from rulebench.core.renamed import rename_fields
from rulebench.core.rules import RuleForm, Sample, TaskData
from rulebench.inferential.data import judging_context
from rulebench.inferential.extraction import Mode
from rulebench.inferential.judge import judge
from rulebench.inferential.prompts import render_prompt, template_for
from rulebench.inferential.rule_lists import RuleListing, list_rules
from rulebench.inferential.settings import Quantity, Setting
from rulebench.train.examples import TrainingExample

KINSHIP = "kinship"
DEFAULT_DATASETS: tuple[str, ...] = ("clutrr", "ulogic", "law")
"""Official datasets with a train split that the paper's in-domain IRFT idea fits."""
QUANTITIES: tuple[Quantity, ...] = ("golden", "few")
_MODES: tuple[Mode, ...] = ("paper", "robust")


class InDomainConfig(BaseModel):
    """What `rulebench train data --in-domain` builds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    data_root: Path | None = None
    """The release's data folder (<clone>/dataset); None: generated kinship data only."""
    tasks: tuple[str, ...] = DEFAULT_DATASETS
    """Official datasets read from `data_root`, each with a train split (formerly
    `datasets`)."""
    kinship_size: int = Field(default=1000, ge=0, le=100_000)
    """Generated kinship train samples (two examples each); 0 leaves kinship out."""
    kinship_seed: int = 1
    """Seed of the kinship train split: 1, so it differs from evaluation's default seed 0 (the
    generator's train stream differs from its test stream at any seed as well)."""
    eval_seed: int = 0
    """Seed of the evaluated kinship samples whose questions are kept out of training."""
    eval_size: int = Field(default=1000, ge=0, le=100_000)
    """Evaluated kinship samples kept out: a run of n <= eval_size samples asks a prefix of
    them (the generator draws stories in order), so this covers every such run."""
    limit: int | None = Field(default=None, ge=1)
    """Cap on the examples written (a seeded sample; formerly `size`); None: all of them."""
    seed: int = 0
    """Seeds noise rules and golden positions (the benchmark's setting seed) and the cap."""
    form: RuleForm = "nl"

    @model_validator(mode="before")
    @classmethod
    def _old_names(cls, data: Any) -> Any:
        # Manifests of folders written before the rename hold the old names.
        renames = {"size": "limit", "datasets": "tasks"}
        return rename_fields(data, renames, "train data --in-domain")


class SourceCount(BaseModel):
    """What one source gave."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    samples: int
    """Train samples read (official) or generated (kinship)."""
    dropped: int
    """Of those, dropped: their question is asked in the evaluated test split."""
    examples: int
    """Examples written (two per kept sample, fewer under the size cap)."""


class InDomainSummary(BaseModel):
    """The manifest's record of an in-domain data folder: how it was built and from what."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    config: InDomainConfig
    sources: dict[str, SourceCount]
    """Per source (kinship, then the datasets in the order given)."""


def sources(config: InDomainConfig) -> tuple[str, ...]:
    """The sources in build order; official ones only with a data root."""
    generated = (KINSHIP,) if config.kinship_size else ()
    official = tuple(dict.fromkeys(config.tasks)) if config.data_root else ()
    return generated + official


def check_sources(config: InDomainConfig) -> None:
    """Fail before any work on an unknown dataset or a data root without its folder.

    Raises:
        ConfigError: no source at all, or a dataset name that is not official.
        DataError: a dataset folder is missing (the message lists the folders there).
    """
    from rulebench.inferential.official import dataset_folder, unknown_dataset_message
    from rulebench.inferential.official_files import file_label, splits_present
    from rulebench.inferential.registry import is_official

    if not sources(config):
        raise ConfigError("in-domain data: no source: give --data-root or a kinship size above 0")
    root = config.data_root
    if root is None:
        return
    for dataset in config.tasks:
        if not is_official(dataset):
            raise ConfigError(unknown_dataset_message(dataset))
        folder = dataset_folder(root, dataset)
        if not (folder / "train_data.json").is_file():
            present = ", ".join(splits_present(folder)) or "none"
            label = file_label(root, folder / "train_data.json")
            raise DataError(f"{label}: no such file (splits present: {present})")


def normalise(question: str) -> str:
    """A question with each run of whitespace as one space: a line ending hides no repeat."""
    return " ".join(question.split())


def drop_asked(train: TaskData, test: TaskData) -> tuple[TaskData, int]:
    """`train` without samples whose question is asked in `test`, and how many were dropped."""
    asked = {normalise(sample.question) for sample in test.samples}
    kept = tuple(s for s in train.samples if normalise(s.question) not in asked)
    return train.model_copy(update={"samples": kept}), len(train.samples) - len(kept)


def load_source(config: InDomainConfig, source: str) -> tuple[TaskData, TaskData]:
    """The train data of a source and the evaluated test data its questions must avoid."""
    if source == KINSHIP:
        from rulebench.inferential.tasks.kinship import generate

        # No demonstrations: they are neither trained on nor change the samples drawn.
        train = generate(config.kinship_size, config.kinship_seed, split="train", n_demos=0)
        return train, generate(config.eval_size, config.eval_seed, n_demos=0)
    from rulebench.inferential.official import load_official

    assert config.data_root is not None  # sources() lists official data only with a root
    train = load_official(config.data_root, source, "train")
    return train, load_official(config.data_root, source, "test")


def check_answer(data: TaskData, sample: Sample, completion: str, context: tuple[str, ...]) -> None:
    """Raise DataError unless both of the task's judges score the written gold right."""
    for mode in _MODES:
        if not judge(data.name, completion, sample, mode, context).correct:
            raise DataError(
                f"in-domain data: {data.name} sample {sample.id}: the {mode} judge scores "
                f"the written gold {completion!r} wrong"
            )


def check_listing(data: TaskData, sample: Sample, listing: RuleListing) -> None:
    """Raise DataError unless the golden rule is listed where the listing says it is.

    Kinship listings are also proved by the oracle: the golden rule applies and yields the
    gold, no listed noise rule applies.
    """
    index = listing.golden_index
    if index is None or listing.rules[index].id != sample.golden_rule:
        raise DataError(f"in-domain data: {data.name} sample {sample.id}: golden rule not listed")
    if data.name == KINSHIP:
        from rulebench.inferential.tasks.kinship.oracle import check_sample

        ids = [rule.id for rule in listing.rules]
        check_sample(sample, ids, data.rules, against_tree=False)


def sample_examples(
    data: TaskData, sample: Sample, config: InDomainConfig, context: tuple[str, ...]
) -> list[TrainingExample]:
    """The Golden Rule and Few Rule examples of one train sample, checked."""
    completion = template_for(data.name).write_answer(sample.gold)
    check_answer(data, sample, completion, context)
    if data.name == KINSHIP:
        from rulebench.inferential.tasks.kinship.oracle import check_tree

        check_tree(sample)
    examples = []
    for quantity in QUANTITIES:
        setting = Setting(quantity=quantity, form=config.form, seed=config.seed)
        listing = list_rules(sample, setting, data)
        check_listing(data, sample, listing)
        assert listing.golden_index is not None  # check_listing proved it
        rule_ids = tuple(rule.id for rule in listing.rules)
        examples.append(
            TrainingExample(
                id=content_hash([data.name, sample.id, quantity, list(rule_ids), config.form]),
                split="train",
                string=sample.question,
                golden_rule=sample.golden_rule,
                rule_ids=rule_ids,
                position=listing.golden_index + 1,
                answer=sample.gold,
                form=config.form,
                prompt=render_prompt(sample, setting, listing, (), data),
                completion=completion,
                task=data.name,
                quantity=quantity,
            )
        )
    return examples


def cap_examples(
    examples: list[TrainingExample], size: int | None, seed: int
) -> list[TrainingExample]:
    """A seeded sample of `size` examples, in their original order; all of them when None."""
    if size is None or size >= len(examples):
        return examples
    chosen = random.Random(f"in-domain:{seed}:size").sample(range(len(examples)), size)
    return [examples[index] for index in sorted(chosen)]


def build_in_domain(
    config: InDomainConfig, on_example: Callable[[TrainingExample], None] | None = None
) -> tuple[list[TrainingExample], dict[str, SourceCount]]:
    """Every in-domain example and the per-source counts; the same config, the same examples."""
    check_sources(config)
    report = on_example or (lambda example: None)
    built: list[TrainingExample] = []
    found: dict[str, tuple[int, int]] = {}
    for source in sources(config):
        train, test = load_source(config, source)
        kept, dropped = drop_asked(train, test)
        found[source] = (len(train.samples), dropped)
        context = judging_context(source, config.data_root) if source != KINSHIP else ()
        for sample in kept.samples:
            for example in sample_examples(kept, sample, config, context):
                built.append(example)
                report(example)
    examples = cap_examples(built, config.limit, config.seed)
    written = {source: 0 for source in found}
    for example in examples:
        written[example.task or ""] += 1
    counts = {
        source: SourceCount(samples=samples, dropped=dropped, examples=written[source])
        for source, (samples, dropped) in found.items()
    }
    return examples, counts
