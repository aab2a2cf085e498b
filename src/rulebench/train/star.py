"""STaR chain-of-thought IRFT data: rounds of `irft-star` runs on a teacher, then a new folder.

Round 1 asks the teacher about every training example, round k about those rounds 1..k-1 left
unsolved (the paper stops after three tries, appendix G.5). Each round is an ordinary stored
run: started again, the same build resumes a stopped round and reads a finished one back, so
the teacher is never asked twice for one attempt. The new folder holds a kept reply as the
completion where an attempt was right (a reasoning teacher's thinking first, as the chain of
thought, with `teacher_reasoning="keep"`), else the plain target; the test splits as they were;
and a manifest naming the teacher, the rounds' runs, what fell back and what became of the
thinking. Only the reply is judged, thinking or not.
"""

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

from rulebench.core.errors import ConfigError, DataError, ModelError
from rulebench.core.items import ItemResult
from rulebench.engine.run_lookup import RUNS_SCANNED, find_run
from rulebench.engine.runner import ProgressReporter, Runner, RunSpec
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord
from rulebench.engine.task_config import parse_task_config
from rulebench.inferential.tasks.stringgame import target_text
from rulebench.models.base import BackendOptions, Model
from rulebench.models.registry import create_model, parse_spec
from rulebench.train.data import (
    DataManifest,
    claim_folder,
    read_examples,
    read_manifest,
    write_folder,
)
from rulebench.train.examples import Split, TrainingExample
from rulebench.train.star_manifest import (
    DEFAULT_TEACHER_REASONING,
    StarRound,
    StarSection,
    TeacherReasoning,
)
from rulebench.train.star_task import MAX_ATTEMPTS, TASK, StarConfig, StarTask

ProgressFactory = Callable[[int], ProgressReporter]
"""Makes one round's progress reporter from its attempt number (the CLI draws a bar)."""
RoundHow = Literal["new", "resumed", "reused"]


class StarPlan(BaseModel):
    """One STaR build: round 1's run spec, where to write, how many attempts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec: RunSpec
    """Round 1's spec: task `irft-star` with the data folder, the teacher and its settings. Built
    as for any run (`run_specs.make_spec`, or `rulebench.api.run_spec("irft-star", teacher,
    {"data": folder}, options)`), so the task's generation defaults apply."""
    output: Path
    """The new data folder (new or empty, or an old data folder with `overwrite`)."""
    attempts: int = Field(default=MAX_ATTEMPTS, ge=1, le=MAX_ATTEMPTS)
    overwrite: bool = False
    teacher_reasoning: TeacherReasoning = DEFAULT_TEACHER_REASONING
    """keep: a kept reply's thinking opens its completion; drop: the reply only. Not part of
    the rounds' runs (the teacher is asked the same either way), so a build again with the
    other choice reuses them and writes the folder anew; the manifest records the choice."""

    @model_validator(mode="after")
    def _is_star_spec(self) -> "StarPlan":
        if self.spec.task != TASK:
            raise ValueError(f"spec.task must be '{TASK}', not '{self.spec.task}'")
        return self


class RoundReport(BaseModel):
    """How one round went in this invocation (the manifest keeps `StarRound`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    round: StarRound
    how: RoundHow
    """new: run now; resumed: a stopped run of the same round finished; reused: a finished
    run of it read back, the teacher not asked."""
    ran: int = 0
    """Items run in this invocation (a resumed round's earlier ones not counted)."""
    cache_hits: int = 0
    """Replies this invocation took from the response cache."""


class StarResult(BaseModel):
    """The written folder, its manifest, and how each round went."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    folder: Path
    manifest: DataManifest
    rounds: tuple[RoundReport, ...]


async def build_star_data(
    plan: StarPlan, store: Store, progress: ProgressFactory | None = None
) -> StarResult:
    """Run the rounds (resuming or reusing stored ones) and write the new data folder.

    Everything that can be refused (teacher spec, data folder, output) is, before any request.

    Raises:
        ConfigError: unknown teacher provider, bad output folder, bad task config.
        DataError: the data folder is not a StringGame data folder.
        ModelError: a round did not finish (its items' errors); starting again resumes it.
    """
    parse_spec(plan.spec.model)
    fields = StarConfig.load_inputs(plan.spec.task_config)  # a relative folder made absolute
    config = parse_task_config(StarConfig, TASK, fields)
    manifest = _check_source(Path(config.data), plan.output)
    first = config.model_copy(update={"attempt": 1, "data_hash": manifest.data_hash})
    spec = plan.spec.model_copy(update={"task_config": first.model_dump(mode="json")})
    claim_folder(plan.output, plan.overwrite)
    rounds = _Rounds(store, progress)
    try:
        await rounds.run_all(spec, plan.attempts)
    finally:
        await rounds.aclose()
    summaries = tuple(report.round for report in rounds.reports)
    written = write_star_folder(plan, manifest, rounds.kept, rounds.scope, summaries)
    return StarResult(folder=plan.output, manifest=written, rounds=tuple(rounds.reports))


def _check_source(source: Path, output: Path) -> DataManifest:
    """The source folder's manifest, once it is known to be StringGame data apart from output."""
    manifest = read_manifest(source)
    if manifest.config is None:
        raise DataError(
            f"{source}: not StringGame data (an in-domain folder?): {TASK} asks for StringGame's "
            "answer line; give a folder `rulebench train data` wrote"
        )
    if source.resolve().is_relative_to(output.resolve()):
        raise ConfigError(f"--output {output} holds the data folder {source}: pick another folder")
    return manifest


def next_round(spec: RunSpec, attempt: int, example_ids: Sequence[str]) -> RunSpec:
    """The spec of attempt `attempt`: the same run, over the examples still unsolved.

    The ids are listed in the stored config, so the round is rebuilt exactly on resume; the
    limit was round 1's business (it chose the examples).
    """
    config = {**spec.task_config, "attempt": attempt, "example_ids": list(example_ids)}
    return spec.model_copy(update={"task_config": config, "limit": None})


def find_round_run(store: Store, spec: RunSpec) -> RunRecord | None:
    """The stored run of this round, if any: the latest finished one, else the latest other."""
    return find_run(store.list_runs(limit=RUNS_SCANNED), spec)


class KeptReply(NamedTuple):
    """A reply whose answer was right, and the thinking it came with (None: none shown)."""

    reply: str
    thinking: str | None


def _kept_replies(results: dict[str, ItemResult]) -> dict[str, KeptReply]:
    """Example id -> reply, for the results whose answer was right (the thinking unjudged)."""
    return {
        example_id: KeptReply(result.reply.strip(), (result.reasoning or "").strip() or None)
        for example_id, result in results.items()
        if result.outcome is not None
        and result.outcome.score == 1.0
        and result.reply is not None
        and result.reply.strip()
    }


def kept_completion(kept: KeptReply, teacher_reasoning: TeacherReasoning) -> str:
    """A right reply as a target: with keep, its thinking first, as the chain of thought.

    The thinking comes without its think tags (split off when the reply came), a blank line
    before the reply, so the target reads as the plain-text reasoning STaR targets are and
    still ends in the answer line the judge read.
    """
    if teacher_reasoning == "keep" and kept.thinking is not None:
        return f"{kept.thinking}\n\n{kept.reply}"
    return kept.reply


class _Ran(NamedTuple):
    """How a round's run was come by in this invocation."""

    run_id: str
    how: RoundHow
    ran: int
    cache_hits: int


class _Rounds:
    """Runs rounds on one store; the teacher is built only when a round has to run."""

    def __init__(self, store: Store, progress: ProgressFactory | None) -> None:
        self.store = store
        self.progress = progress
        self.reports: list[RoundReport] = []
        self.kept: dict[str, KeptReply] = {}
        """Example id -> the first right reply."""
        self.scope: set[str] = set()
        """The examples round 1 covered: the new folder's train split."""
        self._model: Model | None = None

    async def run_all(self, spec: RunSpec, attempts: int) -> None:
        """Round after round until every example is solved or `attempts` rounds ran."""
        for attempt in range(1, attempts + 1):
            report, results = await self.run(spec, attempt)
            self.reports.append(report)
            if attempt == 1:
                self.scope = set(results)
            self.kept.update(_kept_replies(results))
            unsolved = [example_id for example_id in results if example_id not in self.kept]
            if not unsolved:
                return
            spec = next_round(spec, attempt + 1, unsolved)

    async def run(self, spec: RunSpec, attempt: int) -> tuple[RoundReport, dict[str, ItemResult]]:
        """Run, resume or reuse the round; its report and results by example id."""
        found = find_round_run(self.store, spec)
        if found is not None and found.status == "completed":
            ran = _Ran(found.id, "reused", 0, 0)
        else:
            ran = await self._execute(spec, attempt, found)
        results = {str(r.metadata["example_id"]): r for r in self.store.iter_results(ran.run_id)}
        kept = _kept_replies(results)
        misattributed = sum(
            1
            for example_id in kept
            if (outcome := results[example_id].outcome) is not None
            and outcome.details.get("names_golden_rule") is not True
        )
        summary = StarRound(
            attempt=attempt,
            run_id=ran.run_id,
            items=len(results),
            kept=len(kept),
            kept_without_golden_rule=misattributed,
        )
        report = RoundReport(round=summary, how=ran.how, ran=ran.ran, cache_hits=ran.cache_hits)
        return report, results

    async def _execute(self, spec: RunSpec, attempt: int, found: RunRecord | None) -> "_Ran":
        """Run the round, or resume its stopped run; raise unless it completes."""
        reporter = self.progress(attempt) if self.progress is not None else None
        task = StarTask(**spec.task_config)
        resume_id = found.id if found is not None else None
        report = await Runner(self.store, reporter).run(task, self._teacher(spec), spec, resume_id)
        if report.run.status != "completed":
            reason = report.run.notes.get("reason", report.run.status)
            raise ModelError(
                f"{TASK} attempt {attempt}: run {report.run.id} did not finish ({reason}): "
                "start the same build again to resume it (finished replies are kept)"
            )
        how: RoundHow = "new" if found is None else "resumed"
        return _Ran(report.run.id, how, report.completed_now, report.cache_hits_now)

    def _teacher(self, spec: RunSpec) -> Model:
        if self._model is None:
            options = BackendOptions(args=spec.model_args, base_url=spec.base_url)
            self._model = create_model(spec.model, options)
        return self._model

    async def aclose(self) -> None:
        """Release the teacher, if one was built."""
        if self._model is not None:
            await self._model.aclose()


def write_star_folder(
    plan: StarPlan,
    manifest: DataManifest,
    kept: dict[str, KeptReply],
    scope: set[str],
    rounds: tuple[StarRound, ...],
) -> DataManifest:
    """Write the new folder: train completions from `kept` or the plain target, tests copied.

    `scope` is the training examples round 1 covered (all, or the first `--limit`).
    """
    fields = StarConfig.load_inputs(plan.spec.task_config)
    source = Path(parse_task_config(StarConfig, TASK, fields).data)
    train = [example for example in read_examples(source, "train") if example.id in scope]
    records: dict[Split, list[dict[str, JsonValue]]] = {
        "train": [
            example.model_copy(update={"completion": _completion(example, kept, plan)}).to_record()
            for example in train
        ]
    }
    for split in ("test", "heldout"):
        if split in manifest.counts:
            records[split] = [example.to_record() for example in read_examples(source, split)]
    generate = plan.spec.generate
    section = StarSection(
        teacher=plan.spec.model,
        source=str(source),
        source_hash=manifest.data_hash,
        max_attempts=plan.attempts,
        max_tokens=generate.max_tokens,
        temperature=generate.temperature,
        rounds=rounds,
        teacher_reasoning=plan.teacher_reasoning,
        kept=sum(example.id in kept for example in train),
        kept_with_thinking=sum(
            example.id in kept and kept[example.id].thinking is not None for example in train
        ),
        fallbacks=sum(example.id not in kept for example in train),
    )
    return write_folder(
        plan.output,
        records,
        lambda digest: manifest.model_copy(
            update={
                "counts": {split: len(rows) for split, rows in records.items()},
                "data_hash": digest,
                "star": section,
            }
        ),
    )


def _completion(example: TrainingExample, kept: dict[str, KeptReply], plan: StarPlan) -> str:
    """The kept reasoning, else the paper's plain target "Based on the j-th rule, ..."."""
    if example.id in kept:
        return kept_completion(kept[example.id], plan.teacher_reasoning)
    return target_text(example.position, example.answer)
