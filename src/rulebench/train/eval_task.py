"""The test splits of an IRFT data folder as an ordinary task: a tuned model's own measure.

`rulebench train compare` runs it on the in-distribution split (unseen strings, training rules)
and the held-out-rule split of the data the model was tuned on. Each item is one example's
prompt; the reply is judged like the benchmark's StringGame (the number after "the answer is",
else the last number), and the rule it names is recorded to separate triggering from execution.
"""

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, JsonValue, model_validator

from rulebench.core.items import Item, Outcome, content_hash
from rulebench.core.messages import Message
from rulebench.core.renamed import rename_fields
from rulebench.core.rules import Sample
from rulebench.engine.task import Session
from rulebench.engine.task_config import GenerationDefaults, TaskConfig
from rulebench.inferential.tasks.stringgame import ordinal
from rulebench.inferential.tasks.stringgame.extraction import judge_robust
from rulebench.inferential.tasks.stringgame.rules.heldout import HeldOutBy
from rulebench.train.data import read_examples, read_manifest
from rulebench.train.examples import TrainingExample

TestSplit = Literal["test", "heldout"]

_ORDINAL_WORDS = {ordinal(position): position for position in range(1, 11)}
_NAMED_RULE = re.compile(
    r"based on (?:the )?(?:rule (?P<number>\d+)|(?P<word>\w+) rule)", re.IGNORECASE
)


class IrftTestConfig(TaskConfig):
    """Which data folder and split to evaluate (stored with the run, for --resume)."""

    data: str
    """A folder written by `rulebench train data`."""
    split: TestSplit = "test"
    """test: unseen strings, training rules; heldout: golden rules kept out of training (by
    rule or by composition: the data folder's manifest says which)."""
    per_group: int | None = Field(default=None, ge=1)
    """The first examples of the split, this many (formerly `n`); None: all of them."""
    heldout_by: HeldOutBy | None = None
    """How the folder's held-out rules were kept out of training (its manifest's choice),
    recorded when the run is made so `runs show` and reports name the split measured."""

    @model_validator(mode="before")
    @classmethod
    def _old_names(cls, data: Any) -> Any:
        # Runs stored before the rename hold `n`; they still resume.
        return rename_fields(data, {"n": "per_group"}, "irft-test")

    def resolved_for(self, model: str) -> "IrftTestConfig":
        """The data folder's held-out split, read from its manifest and recorded."""
        if self.heldout_by is not None:
            return self
        return self.model_copy(update={"heldout_by": folder_heldout_by(Path(self.data))})

    def generation_defaults(self) -> GenerationDefaults:
        """The target is one short line; a model tuned on reasoning needs --max-tokens more."""
        return GenerationDefaults(max_tokens=DIRECT_MAX_TOKENS)


DIRECT_MAX_TOKENS = 48
"""Room for "Based on the second rule, the answer is 12." and a little more."""


def named_rule(reply: str) -> int | None:
    """The rule a reply says it used ("based on the third rule", "based on rule 3"), if any."""
    found = list(_NAMED_RULE.finditer(reply))
    if not found:
        return None
    last = found[-1]
    if last.group("number"):
        return int(last.group("number"))
    word = last.group("word").lower()
    digits = re.fullmatch(r"(\d+)(?:st|nd|rd|th)", word)
    return int(digits.group(1)) if digits else _ORDINAL_WORDS.get(word)


class IrftTestTask:
    """The examples of one test split, one item each, judged by their oracle answers."""

    name = "irft-test"
    config_type = IrftTestConfig

    def __init__(self, **config: object) -> None:
        self.settings = IrftTestConfig.model_validate(config)
        self.folder = Path(self.settings.data).expanduser()
        # A folder `train data` did not write fails here.
        self.heldout_by = self.settings.heldout_by or folder_heldout_by(self.folder)

    def config(self) -> dict[str, JsonValue]:
        """The validated configuration as JSON."""
        return self.settings.model_dump(mode="json")

    def items(self) -> list[Item]:
        """The split's first `per_group` examples, in file order; ids: the examples' content ids."""
        examples = read_examples(self.folder, self.settings.split)
        return [self._item(example) for example in examples[: self.settings.per_group]]

    def _item(self, example: TrainingExample) -> Item:
        # The example id hashes split, string, rules and form; the prompt is hashed too, so a
        # changed template never shares an id (or a cached reply) with the old one.
        defined_by: list[JsonValue] = ["irft-test", example.id, content_hash(example.prompt)]
        return Item(
            id=content_hash(defined_by),
            messages=(Message(role="user", content=example.prompt),),
            target=example.answer,
            metadata={
                "split": example.split,
                "heldout_by": self.heldout_by,
                "example_id": example.id,
                "golden_rule": example.golden_rule,
                "position": example.position,
                "rules": len(example.rule_ids),
                "form": example.form,
            },
        )

    async def solve(self, item: Item, session: Session) -> Outcome:
        """Generate, read the number and the rule named, and compare with the oracle's."""
        completion = await session.generate(item.messages)
        gold = str(item.target)
        sample = Sample(id=item.id, task="stringgame", question="", gold=gold, golden_rule="")
        judgement = judge_robust(completion.text, sample)
        named = named_rule(completion.text)
        return Outcome(
            answer=judgement.answer,
            score=float(judgement.correct),
            details={"named_rule": named, "triggered": named == item.metadata["position"]},
        )


def folder_heldout_by(folder: Path) -> HeldOutBy:
    """How a `train data` folder held rules out; folders written before the choice: by rule."""
    manifest = read_manifest(folder.expanduser())
    return manifest.config.heldout_by if manifest.config else "rules"
