"""The inferential benchmark as the runner sees it: samples x settings -> items, then scoring."""

import logging
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Literal

from pydantic import Field, JsonValue, model_validator

from rulebench.core.errors import ConfigError
from rulebench.core.items import Item, Outcome, content_hash
from rulebench.core.messages import Message
from rulebench.core.renamed import rename_fields
from rulebench.core.rules import Rule, Sample, TaskData
from rulebench.core.wording import Prompts, UpstreamText
from rulebench.engine.task import Session
from rulebench.engine.task_config import GenerationDefaults, TaskConfig
from rulebench.inferential.citation import cited_rule, upstream_citation
from rulebench.inferential.data import DEFAULT_TASKS, check_heldout, judging_context, load_task
from rulebench.inferential.default_tasks import (
    describe_left_out,
    fit_default_tasks,
    release_tasks,
)
from rulebench.inferential.item_meta import SAMPLE_FACTS, ItemMeta
from rulebench.inferential.prompts import pick_demos, render_prompt, template_for
from rulebench.inferential.resampling import (
    Attempt,
    Resample,
    attempt_details,
    generate_until_answered,
    is_resampled,
    resample_note,
)
from rulebench.inferential.rule_lists import RuleListing, golden_of, list_rules, shared_listings
from rulebench.inferential.settings import (
    PAPER_MAX_TOKENS,
    Grid,
    Setting,
    design_settings,
    paper_design,
    settings_for,
)
from rulebench.inferential.solving import (
    LOGLIK_SCORINGS,
    check_scoring,
    judge_reply,
    pick_by_loglik,
)
from rulebench.inferential.tasks.stringgame.rules.heldout import HeldOutBy
from rulebench.inferential.upstream.items import probe_upstream, render_upstream, resolve_source
from rulebench.inferential.upstream.skipped import SkippedCell

logger = logging.getLogger(__name__)

ExtractMode = Literal["paper", "robust"]
Scoring = Literal["generate", "loglik", "loglik-norm"]


class InferentialConfig(TaskConfig):
    """Everything that defines an inferential run's items and scoring (stored for --resume)."""

    tasks: tuple[str, ...] = DEFAULT_TASKS
    per_group: int | None = Field(default=None, ge=1)
    """Samples per task: generated tasks make this many (None: 100); official ones take the
    first this many (None: all)."""
    seed: int = 0
    data_root: str | None = None
    grid: Grid = Grid()
    design: Literal["grid", "paper"] = "grid"
    """paper: the paper's whole experimental design (see `paper_design`) instead of `grid`."""
    extract: ExtractMode = "robust"
    """Which extraction decides the score; both are stored with every result."""
    scoring: Scoring = "generate"
    """"loglik" picks the most likely candidate answer (local models, closed answer sets);
    "loglik-norm" the most likely per character of the written answer (lm-eval's acc_norm)."""
    repeats: int = Field(default=1, ge=1)
    """Evaluations of every item, each sampling with its own seed (spread across repeats)."""
    heldout_by: HeldOutBy | None = None
    """StringGame only: its golden rules are the IRFT held-out rules of this split (the one
    `train data --seed SEED --heldout-by` keeps out of training), "rules" or "composition";
    None: any rule."""
    prompts: Prompts = "rulebench"
    """Whose wording: rulebench's own, or upstream's, built by the user's clone at run time."""
    upstream: str | None = None
    """The clone (or its processor.py) for upstream prompts; None: beside data_root."""
    upstream_source: UpstreamText | None = None
    """The clone the upstream prompts came from, recorded when the run is made."""
    upstream_model_name: str = ""
    """The model name upstream's code sees (theoremQA cuts rules to 300 words for Llama-2);
    filled from the run's model spec (`resolved_for`) unless given."""
    upstream_skipped: tuple[SkippedCell, ...] = ()
    """Cells of the paper design the clone cannot build, left out of the run with upstream's
    error (found by `resolved_for`; see `upstream.skipped`)."""
    resample: Resample | None = None
    """upstream: ask a ulogic(-cf) or theoremQA item again while its reply lacks upstream's
    answer line, up to 5 requests at temperature 0.5 (`resampling`), as upstream's vLLM client
    does; off: one request. None: filled when the run is made (`resolved_for`), upstream with
    upstream prompts, else off; runs stored before the option made one request and resume so."""

    @model_validator(mode="before")
    @classmethod
    def _old_names(cls, data: object) -> object:
        return rename_fields(data, {"n": "per_group"}, "inferential")

    @model_validator(mode="after")
    def _upstream_needs_upstream_prompts(self) -> "InferentialConfig":
        # A clone named for rulebench's own wording would be recorded but never read.
        if self.prompts == "rulebench" and self.upstream is not None:
            raise ConfigError(
                f"--upstream {self.upstream} is read only with --prompts upstream "
                "(add --prompts upstream, or drop --upstream)"
            )
        # Candidates are scored as written in rulebench's answer format ("Answer: X"), which
        # upstream's prompts never ask for: the number would match neither paper nor wording.
        if self.prompts == "upstream" and self.scoring != "generate":
            raise ConfigError(
                f"--scoring {self.scoring} scores candidates in rulebench's answer format, which "
                "upstream's prompts do not ask for: use --scoring generate with --prompts upstream"
            )
        if self.resample == "upstream" and self.scoring != "generate":
            raise ConfigError(
                f"--resample upstream re-asks generated replies; --scoring {self.scoring} "
                "generates none: use --resample off (or --scoring generate)"
            )
        return self

    def protocol_notes(self) -> tuple[str, ...]:
        """Re-asking upstream's way, where a task of the run is re-asked."""
        note = resample_note(self.tasks) if self.resample == "upstream" else None
        return () if note is None else (note,)

    def resolved_for(self, model: str) -> "InferentialConfig":
        """The tasks the run's options apply to, and upstream wording's clone and model name.

        With no task named, the default tasks that cannot honour an option (StringGame under
        log-likelihood scoring) are left out, with one warning; the stored config names the
        tasks kept. Upstream wording records its clone and the model name upstream's code sees:
        the spec after its provider. A resume then sees what the items were made with.
        Under the paper design, the cells that clone cannot build are recorded and left out,
        one warning each (`upstream.skipped`). Re-asking, when not given, follows the wording.
        """
        config = self._fitted_to_default_tasks()
        if config.resample is None:
            resample = "upstream" if config.prompts == "upstream" else "off"
            config = config.model_copy(update={"resample": resample})
        if config.prompts != "upstream":
            return config
        name = config.upstream_model_name or model.split("/", 1)[-1]
        _, resolved = with_upstream_source(config.model_copy(update={"upstream_model_name": name}))
        if resolved.design != "paper":
            return resolved
        skipped = InferentialTask(**resolved.model_dump()).unbuildable_cells()
        for cell in skipped:
            logger.warning("%s", cell.line())
        return resolved.model_copy(update={"upstream_skipped": skipped})

    def _fitted_to_default_tasks(self) -> "InferentialConfig":
        if "tasks" in self.model_fields_set:
            return self  # named tasks: an option they cannot honour is refused, never dropped
        defaults = self.tasks
        if self.data_root is not None:
            defaults = release_tasks(Path(self.data_root))
            logger.warning(
                "no -t given: running the datasets found in --data-root: %s (name tasks with -t)",
                ", ".join(defaults),
            )
        tasks, left_out = fit_default_tasks(defaults, self.scoring, self.grid)
        if left_out:
            logger.warning(
                "default tasks left out: %s (name tasks with -t)", describe_left_out(left_out)
            )
        if tasks == self.tasks:
            return self
        return self.model_copy(update={"tasks": tasks})

    def choice_scoring(self) -> str | None:
        """`scoring loglik` (or loglik-norm) when answers are scored by log-likelihood."""
        return f"scoring {self.scoring}" if self.scoring != "generate" else None

    def generation_defaults(self) -> GenerationDefaults:
        """Short direct answers; room for chain of thought; the paper's 500 for its design."""
        if self.design == "paper":
            return GenerationDefaults(max_tokens=PAPER_MAX_TOKENS)
        cot = True in self.grid.cot
        return GenerationDefaults(max_tokens=COT_MAX_TOKENS if cot else DIRECT_MAX_TOKENS)


DIRECT_MAX_TOKENS = 48
"""Direct answers are short."""
COT_MAX_TOKENS = 320
"""Chain of thought needs room; the paper allows 500 new tokens (`--grid paper` uses them)."""


class InferentialTask:
    """RuleBench on the engine: each (task, sample, setting) is an item."""

    name = "inferential"
    config_type = InferentialConfig

    def __init__(self, **config: object) -> None:
        self.settings = InferentialConfig.model_validate(config)
        check_scoring(self.settings.scoring, self.settings.tasks)
        check_heldout(self.settings.heldout_by, self.settings.tasks)
        self._data: dict[str, TaskData] = {}
        self._samples: dict[tuple[str, str], Sample] = {}
        self._charges: dict[str, tuple[str, ...]] = {}
        self._processor: Path | None = None
        if self.settings.prompts == "upstream":
            self._processor, self.settings = with_upstream_source(self.settings)

    def config(self) -> dict[str, JsonValue]:
        """The validated configuration as JSON."""
        return self.settings.model_dump(mode="json")

    def data(self, task: str) -> TaskData:
        """A task's data, loaded or generated once."""
        if task not in self._data:
            root = Path(self.settings.data_root) if self.settings.data_root else None
            settings = self.settings
            data = load_task(task, settings.per_group, settings.seed, root, settings.heldout_by)
            self._data[task] = data
            self._charges[task] = judging_context(task, root)
            self._samples.update({(task, s.id): s for s in data.samples})
        return self._data[task]

    def items(self) -> list[Item]:
        """Every task x setting x sample, rendered; listed so progress knows the total."""
        if self._processor is not None:
            return self._upstream_items(self._processor)
        return [item for task in self.settings.tasks for item in self._task_items(task)]

    def _task_items(self, task: str) -> Iterator[Item]:
        data = self.data(task)
        evaluated = {s.id for s in data.samples}
        for setting in self._settings(task, data):
            demos = pick_demos(data, setting, evaluated)
            shared = {}
            if setting.layout == "shared":
                shared = shared_listings(data.samples, setting, data)
            for sample in data.samples:
                listing = shared.get(sample.id) or list_rules(sample, setting, data)
                prompt = render_prompt(sample, setting, listing, demos, data)
                for repeat in range(self.settings.repeats):
                    yield self._item(sample, setting, listing, prompt, repeat)

    def unbuildable_cells(self) -> tuple[SkippedCell, ...]:
        """The cells upstream's code fails on, each with its error (upstream wording only)."""
        if self._processor is None:
            return ()
        return probe_upstream(
            self._upstream_cells(frozenset()),
            self._processor,
            self.settings.data_root,
            self.settings.seed,
            self.settings.upstream_model_name,
        )

    def _upstream_cells(self, skipped: frozenset[tuple[str, str]]) -> list[tuple[Sample, Setting]]:
        """Every (sample, setting) to build, but those of the `skipped` (task, setting) cells."""
        return [
            (sample, setting)
            for task in self.settings.tasks
            for setting in self._settings(task, self.data(task))
            if (task, setting.label()) not in skipped
            for sample in self.data(task).samples
        ]

    def _upstream_items(self, processor: Path) -> list[Item]:
        """Every item in upstream's wording, all prompts built by one child process."""
        skipped = frozenset((cell.task, cell.setting) for cell in self.settings.upstream_skipped)
        cells = self._upstream_cells(skipped)
        built = render_upstream(
            cells,
            processor,
            self.settings.data_root,
            self.settings.seed,
            self.settings.upstream_model_name,
        )
        items = []
        for (sample, setting), prompt in zip(cells, built, strict=True):
            rules = self.data(sample.task).rules
            listed = tuple(rules.get(i) or Rule(id=i, nl="") for i in prompt.listed)
            listing = RuleListing(rules=listed, golden_index=prompt.golden_index)
            for repeat in range(self.settings.repeats):
                item = self._item(sample, setting, listing, prompt.text, repeat)
                meta = {**item.metadata, "rule_draw": prompt.rule_draw}
                items.append(item.model_copy(update={"metadata": meta}))
        return items

    def _settings(self, task: str, data: TaskData) -> Iterable[Setting]:
        grid = self.settings.grid
        if self.settings.design == "paper":
            return design_settings(task, data, paper_design(grid.seed, grid.layout))
        return settings_for(task, data, grid)

    def _item(
        self, sample: Sample, setting: Setting, listing: RuleListing, prompt: str, repeat: int
    ) -> Item:
        _, gold = golden_of(sample, setting)
        meta = ItemMeta(
            task=sample.task,
            sample_id=sample.id,
            setting=setting.label(),
            cell=f"{sample.task} {setting.label()}",
            **setting.model_dump(mode="json", exclude={"seed", "rule_count"}),
            golden_index=None if listing.golden_index is None else listing.golden_index + 1,
            listed_rules=tuple(rule.id for rule in listing.rules),
            gold=gold,
            repeat=repeat,
            **{k: sample.metadata[k] for k in SAMPLE_FACTS if k in sample.metadata},
            **self._wording(),
        )
        # The prompt itself is part of the id: whatever changes it (another --per-group changing a
        # generated rule pool, a shared listing, demonstrations) makes another item, so caches
        # and cross-run pairing never mix different prompts under one id.
        defined_by: list[JsonValue] = [
            "inferential",
            sample.task,
            sample.id,
            setting.model_dump(mode="json"),
            content_hash(prompt),
            *(["prompts: upstream"] if self._processor is not None else []),
        ]
        base_id = content_hash(defined_by)
        return Item(
            id=base_id if repeat == 0 else content_hash([base_id, repeat]),
            messages=(Message(role="user", content=prompt),),
            target=gold,
            choices=sample.candidates,
            metadata=meta.model_dump(mode="json"),
            repeat=repeat,
        )

    def _wording(self) -> dict[str, str]:
        """What an item records about its wording (its rule draw: `_upstream_items`)."""
        return {} if self._processor is None else {"prompts": "upstream"}

    async def solve(self, item: Item, session: Session) -> Outcome:
        """Generate and judge in both extraction modes, or pick a candidate by log-likelihood.

        With `resample` upstream, a re-asked dataset's item may take several requests; the
        last reply is scored and the attempts are recorded in the outcome's details.
        """
        meta = ItemMeta.read(item.metadata, item.id)
        task = meta.task
        self.data(task)
        sample = self._samples[(task, meta.sample_id)]
        scored = sample.model_copy(update={"gold": str(item.target)})
        if self.settings.scoring in LOGLIK_SCORINGS and item.choices:
            template = template_for(task)
            return await pick_by_loglik(
                session, item, scored, template.write_answer, self.settings.scoring
            )
        attempts: tuple[Attempt, ...] = ()
        if self.settings.resample == "upstream" and is_resampled(task):
            completion, attempts = await generate_until_answered(
                session, item.messages, task, item.repeat
            )
        else:
            completion = await session.generate(item.messages)
        cite: Callable[[str], int | None] = cited_rule
        if meta.prompts == "upstream":
            cite = upstream_citation(task, meta.listed_rules)
        outcome = judge_reply(
            completion.text, scored, self.settings.extract, self._charges[task], cite
        )
        if not attempts:
            return outcome
        details = {**outcome.details, **attempt_details(attempts)}
        return outcome.model_copy(update={"details": details})


def with_upstream_source(config: InferentialConfig) -> tuple[Path, InferentialConfig]:
    """The clone's processor.py, and the config with that clone recorded (for the run)."""
    processor, source = resolve_source(config.upstream, config.data_root, config.upstream_source)
    return processor, config.model_copy(update={"upstream_source": source})
