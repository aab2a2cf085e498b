"""`irft-star`: one attempt of a teacher model at reasoning out each IRFT training example.

STaR (paper appendix G.5): a teacher's chain of thought becomes an example's target only when it
reaches the right answer; an example no attempt solves falls back to the plain target. Each
attempt is an ordinary run of this task, so its replies are stored, cached and resumable like
any evaluation's; `train.star` chains the rounds and writes the new data folder.
"""

from collections.abc import Mapping
from pathlib import Path

from pydantic import Field, JsonValue

from rulebench.core.errors import DataError
from rulebench.core.items import Item, Outcome, content_hash
from rulebench.core.messages import Message
from rulebench.core.rules import Sample
from rulebench.engine.task import Session
from rulebench.engine.task_config import GenerationDefaults, TaskConfig
from rulebench.inferential.tasks.stringgame.extraction import judge_robust, number_after_answer_is
from rulebench.train.data import read_examples, read_manifest
from rulebench.train.eval_task import named_rule
from rulebench.train.examples import TrainingExample

TASK = "irft-star"
MAX_ATTEMPTS = 3
"""The paper's limit: an example the teacher fails three times gets the plain target."""
COT_INSTRUCTION = (
    "Think step by step before you answer: check each rule's condition against the input "
    "string, say which rule's condition holds, and compute that rule's output from the string. "
    'Then end with the line "Based on the N-th rule, the answer is X."'
)
"""Appended to the example's prompt for the teacher only; the training prompt stays the
example's own, so the tuned model learns to reason when asked the plain question."""


class StarConfig(TaskConfig):
    """One round: the data folder, which attempt it is, and the examples still unsolved."""

    data: str
    """A folder written by `rulebench train data`; stored absolute, so a resume started
    from another directory reads the same folder."""
    data_hash: str | None = None
    """The folder's data hash when the round was planned: a folder rewritten since is
    refused rather than mixed into the round's results (None: not checked)."""
    attempt: int = Field(default=1, ge=1, le=MAX_ATTEMPTS)
    """Which try this is; each samples with a seed of its own (the items' `repeat`)."""
    example_ids: tuple[str, ...] | None = None
    """Training examples to ask about, in folder order; None: every one."""

    @classmethod
    def load_inputs(cls, fields: Mapping[str, JsonValue]) -> Mapping[str, JsonValue]:
        """The fields with `data` made absolute (`~` expanded, links and `..` resolved).

        The load step a caller's fields pass before validation (`catalog.task_config`,
        `star.build_star_data`): resolving reads the file system, which a config's validators
        never do, so a config validated as stored keeps its folder as it was recorded.
        """
        read = dict(fields)
        if isinstance(data := read.get("data"), str):
            read["data"] = str(Path(data).expanduser().resolve())
        return read

    def generation_defaults(self) -> GenerationDefaults:
        """Room for a few sentences of reasoning; sampling, so a retry is a new draw."""
        return GenerationDefaults(max_tokens=400, temperature=0.7)


def teacher_prompt(example: TrainingExample) -> str:
    """The example's prompt with the request to reason before the answer line."""
    return f"{example.prompt}\n\n{COT_INSTRUCTION}"


def judge_reply(reply: str, item: Item, is_cut: bool) -> Outcome:
    """Right when the reply ends in an answer line whose number is the example's answer.

    The benchmark's robust reading gives the number; beyond it, a kept reply must state "the
    answer is X" (it becomes a target that should end as the plain one does) and must not be
    cut at the token limit: a number that merely happens to match is no reasoning to train on.
    """
    gold = str(item.target)
    sample = Sample(id=item.id, task="stringgame", question="", gold=gold, golden_rule="")
    judgement = judge_robust(reply, sample)
    has_answer_line = number_after_answer_is(reply) is not None
    named = named_rule(reply)
    position = item.metadata["position"]
    details: dict[str, JsonValue] = {
        "named_rule": named,
        "golden_position": position,
        "names_golden_rule": named == position,
        "has_answer_line": has_answer_line,
        "is_cut": is_cut,
    }
    reason = None
    if is_cut:
        reason = "the reply was cut at the token limit"
    elif not has_answer_line:
        reason = 'the reply has no "the answer is X" line'
    correct = judgement.correct and reason is None
    return Outcome(answer=judgement.answer, score=float(correct), reason=reason, details=details)


class StarTask:
    """The chosen training examples of a data folder, asked once each with reasoning."""

    name = TASK
    config_type = StarConfig

    def __init__(self, **config: object) -> None:
        self.settings = StarConfig.model_validate(config)
        self.folder = Path(self.settings.data)
        manifest = read_manifest(self.folder)  # not a data folder: fails here, by name
        expected = self.settings.data_hash
        if expected is not None and manifest.data_hash != expected:
            raise DataError(
                f"{self.folder}: the data changed since this round was planned (hash "
                f"{expected[:16]}, now {manifest.data_hash[:16]}): start a new STaR build"
            )

    def config(self) -> dict[str, JsonValue]:
        """The validated configuration as JSON."""
        return self.settings.model_dump(mode="json")

    def items(self) -> list[Item]:
        """One item per chosen example, in folder order."""
        return [self._item(example) for example in select_examples(self.folder, self.settings)]

    def _item(self, example: TrainingExample) -> Item:
        attempt = self.settings.attempt
        prompt = teacher_prompt(example)
        # The attempt is in the id and in `repeat`: each attempt has results, cache entries
        # and a sampling seed of its own, so a retry is a fresh draw, not the cached reply.
        # The prompt is hashed too: a changed instruction never resumes an old round's items.
        defined_by: list[JsonValue] = [TASK, example.id, content_hash(prompt), attempt]
        return Item(
            id=content_hash(defined_by),
            messages=(Message(role="user", content=prompt),),
            target=example.answer,
            metadata={
                "example_id": example.id,
                "attempt": attempt,
                "position": example.position,
                "golden_rule": example.golden_rule,
            },
            repeat=attempt - 1,
        )

    async def solve(self, item: Item, session: Session) -> Outcome:
        """Ask the teacher, then judge its answer against the oracle's."""
        completion = await session.generate(item.messages)
        return judge_reply(completion.text, item, completion.finish_reason == "length")


def select_examples(folder: Path, config: StarConfig) -> list[TrainingExample]:
    """The training examples a round asks about: all, or the listed ids in folder order.

    Raises:
        DataError: a listed id is not in the folder's train split.
    """
    examples = read_examples(folder, "train")
    if config.example_ids is None:
        return examples
    wanted = set(config.example_ids)
    missing = wanted.difference(example.id for example in examples)
    if missing:
        shown = ", ".join(sorted(missing)[:3])
        raise DataError(
            f"{folder}: {len(missing)} example ids of this round are not in train.jsonl "
            f"(e.g. {shown})"
        )
    return [example for example in examples if example.id in wanted]
