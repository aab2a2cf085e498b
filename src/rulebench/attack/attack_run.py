"""A GCG attack on one scenario rule, stored step by step as a run: start, resume, measure.

The loss of a step is on that step's instances; with instances re-sampled every
`resample_every` steps (the paper re-samples every step) the suffix is pushed to work for any
secret, word or name. Losses of different instances do not compare, so the attack's effect is
measured at the end on held-out instances drawn apart from the steps' (a scenario with few
possible parameters, such as RockPaperScissors's names, can repeat one): the initial and the
final suffix, mean target loss and how many targets greedy decoding reproduces.
"""

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal
from typing import Protocol as TypingProtocol

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from rulebench.attack.gcg.config import GcgConfig
from rulebench.attack.gcg.prompt import AttackPrompt, encode, load_attack_model
from rulebench.attack.gcg.search import GcgAttack, GcgState, check_initial_suffix
from rulebench.attack.instances import RulePrompts, check_rule
from rulebench.attack.stored import as_step_result, initial_result, last_state
from rulebench.core.errors import StoreError
from rulebench.core.items import ItemResult
from rulebench.core.run_kinds import GCG_TASK
from rulebench.core.stop import raise_if_stop_requested, watching_stop
from rulebench.core.validation import validate_into
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunStatus
from rulebench.engine.store.writer import StoreWriter
from rulebench.models.hf.loading import LoadedModel
from rulebench.models.local_chat import template_takes_system
from rulebench.models.registry import EMBEDDED_MODEL_NAME
from rulebench.scenarios.protocol import Protocol

KEPT_ON_RESUME = ("shard",)
"""Notes an attack keeps when resumed: set when it started, not by how it ended."""
Device = Literal["auto", "cpu", "cuda", "mps"]
DType = Literal["auto", "float32", "bfloat16", "float16"]


class AttackConfig(BaseModel):
    """Everything that defines an attack; stored as its run's config (a resume reads it back).

    Each field's docstring is also the help of the option that fills it
    (`use_attribute_docstrings`; `attack_options.AttackOptions`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    model: str = f"hf/{EMBEDDED_MODEL_NAME}"
    """hf/<folder, .gguf or cached hub id>: GCG needs gradients."""
    scenario: str
    behavior: str
    """The rule attacked (`check_rule` fills it in for a one-rule scenario)."""
    gcg: GcgConfig = GcgConfig()
    instances: int = Field(default=1, ge=1)
    """Scenario instances whose losses are averaged at each step."""
    resample_every: int = Field(default=1, ge=0)
    """Steps between fresh instances (0: the first instances throughout)."""
    heldout: int = Field(default=8, ge=1)
    """Instances no step sees, measured with the initial and the final suffix."""
    protocol: Protocol = Protocol()
    """How the instructions are placed: the same as the `run scenarios` the suffix is for."""
    device: Device = "auto"
    """Where the model runs."""
    dtype: DType = "auto"
    """Weights' dtype (auto: float32 on CPU)."""


class HeldOut(BaseModel):
    """A suffix measured on the held-out instances."""

    model_config = ConfigDict(frozen=True)

    suffix: str
    loss: float
    """Mean target loss over the instances."""
    reached: int
    """Instances whose target greedy decoding reproduces after the suffix."""
    instances: int


class AttackResult(BaseModel):
    """How an attack ended: its run, final suffix, loss per step and the held-out measures."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    config: AttackConfig
    state: GcgState
    initial: HeldOut
    final: HeldOut
    seconds_per_step: float | None
    """Mean wall time of this invocation's steps (None when it ran none)."""

    @property
    def suffix(self) -> str:
        """The suffix the attack ended with."""
        return self.state.suffix


class AttackProgress(TypingProtocol):
    """What an attack reports while it runs (the CLI draws a bar)."""

    def begin(self, run_id: str, total_steps: int, done_steps: int) -> None:
        """The attack starts, `done_steps` of `total_steps` already stored."""

    def update(self, step: int, loss: float, suffix: str) -> None:
        """A step is stored."""


class _Quiet:
    def begin(self, run_id: str, total_steps: int, done_steps: int) -> None:
        """Nothing to draw."""

    def update(self, step: int, loss: float, suffix: str) -> None:
        """Nothing to draw."""


def attack_config(
    model: str | None, scenario: str, behavior: str | None, **settings: object
) -> AttackConfig:
    """A validated attack config; the rule defaults to the scenario's only one.

    A setting (or the model) given as None takes AttackConfig's default, so a caller passes
    what its user left out as None and gets the same config the CLI stores.

    Raises:
        ConfigError: an unknown scenario or rule, or settings out of range.
    """
    rule = check_rule(scenario, behavior)
    given: dict[str, object] = {"model": model, **settings}
    values: dict[str, object] = {"scenario": scenario, "behavior": rule}
    values |= {name: value for name, value in given.items() if value is not None}
    return validate_into(AttackConfig, values, "gcg")


@dataclass(frozen=True)
class AttackContext:
    """What an attack may be given beside its config: a model loaded already, notes to keep.

    A shard of several targets (`attack.shards`) loads its model once for all of them and
    records its place in every attack's notes.
    """

    loaded: LoadedModel | None = None
    """The config's model, loaded (None: load it)."""
    notes: dict[str, JsonValue] = field(default_factory=dict)
    """Written into the run's notes however it ends (a kill aside)."""


def run_attack(
    config: AttackConfig,
    store: Store,
    progress: AttackProgress | None = None,
    context: AttackContext | None = None,
) -> AttackResult:
    """Start an attack: a new run whose every step is stored as it finishes.

    Raises:
        ConfigError: a model that is not hf, or a target or suffix that tokenizes to nothing.
    """
    context = context or AttackContext()
    loaded = context.loaded or load_attack_model(config.model, config.device, config.dtype)
    check_initial_suffix(loaded, config.gcg.optim_str_init)  # before a run exists to fail
    record = store.create_run(GCG_TASK, config.model, config.model_dump(mode="json"))
    return _drive(record.id, config, loaded, store, (progress or _Quiet(), context.notes))


def resume_attack(
    run_id: str,
    store: Store,
    progress: AttackProgress | None = None,
    context: AttackContext | None = None,
) -> AttackResult:
    """Continue a stopped attack from its last stored step, on the same trajectory.

    A completed attack is left as it is (nothing is written): its stored result is returned.

    Raises:
        StoreError: not a GCG run, or one that another live process is running.
        ConfigError: a stored config this version cannot read.
    """
    finished = finished_attack(store, run_id)
    if finished is not None:
        return finished
    context = context or AttackContext()
    record = store.get_run(run_id)
    config = validate_into(AttackConfig, record.config, f"run {record.id}: stored attack config")
    loaded = context.loaded or load_attack_model(config.model, config.device, config.dtype)
    store.reopen_run(record.id)
    # A shard's attack resumed alone (--resume RUN) still says which shard it belongs to.
    kept = {name: record.notes[name] for name in KEPT_ON_RESUME if name in record.notes}
    return _drive(record.id, config, loaded, store, (progress or _Quiet(), kept | context.notes))


def finished_attack(store: Store, run_id: str) -> AttackResult | None:
    """A completed attack's result as stored, or None for an attack that can go on.

    Raises:
        StoreError: not a GCG run, or its stored steps or notes are not ones an attack wrote.
    """
    record = store.get_run(run_id)
    state = last_state(store, record.id)  # refuses a run of another task
    if record.status != "completed":
        return None
    where = f"run {record.id}: stored attack"
    if state is None:
        raise StoreError(f"{where} is completed but has no stored step")
    notes = record.notes
    return validate_into(
        AttackResult,
        {
            "run_id": record.id, "config": record.config, "state": state.model_dump(),
            "initial": notes.get("heldout_initial"), "final": notes.get("heldout_final"),
            "seconds_per_step": notes.get("seconds_per_step"),
        },
        where,
    )  # fmt: skip


def _drive(
    run_id: str,
    config: AttackConfig,
    loaded: LoadedModel,
    store: Store,
    reporting: tuple[AttackProgress, dict[str, JsonValue]],
) -> AttackResult:
    """Run the steps left, storing each, then measure on the held-out instances.

    `reporting` is where progress goes and the notes kept however the attack ends.
    """
    progress, kept = reporting
    writer = store.writer()
    status: RunStatus = "failed"
    notes: dict[str, JsonValue] = {}
    try:
        result = _Driver(run_id, config, loaded, writer).run(last_state(store, run_id), progress)
        status, notes = "completed", _notes(result)
        return result
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    except Exception as exc:
        notes = {"reason": str(exc)}
        raise
    finally:
        writer.close()
        store.finish_run(run_id, status, kept | notes)


class _Driver:
    """Steps one attack, re-sampling its instances block by block and storing every step."""

    def __init__(
        self, run_id: str, config: AttackConfig, loaded: LoadedModel, writer: StoreWriter
    ) -> None:
        self.run_id = run_id
        self.config = config
        self.loaded = loaded
        self.writer = writer
        self.rule = RulePrompts(
            config.scenario, config.behavior, config.protocol, template_takes_system(loaded.render)
        )

    def run(self, state: GcgState | None, progress: AttackProgress) -> AttackResult:
        """From `state` (None: from the start) to the last step, then the held-out measures."""
        gcg = self.config.gcg
        block = self._block(0 if state is None else state.step)
        attack = GcgAttack(self.loaded, self._block_prompts(block), gcg)
        if state is None:
            started = time.perf_counter()
            state = attack.initial_state()
            self._store(initial_result(state, time.perf_counter() - started))
        progress.begin(self.run_id, gcg.num_steps, state.step)
        times: list[float] = []
        # A requested stop (SIGTERM, Ctrl-C) lets the step under way finish and be stored.
        with watching_stop():
            while state.step < gcg.num_steps and not (gcg.early_stop and state.is_target_reached):
                raise_if_stop_requested()
                if (wanted := self._block(state.step)) != block:
                    block = wanted
                    attack = attack.retarget(self._block_prompts(block))
                started = time.perf_counter()
                step = attack.step(state)
                times.append(time.perf_counter() - started)
                self._store(as_step_result(step, times[-1]))
                state = step.state
                progress.update(state.step, state.loss, state.suffix)
            raise_if_stop_requested()
        initial, final = self._measure(attack, state)
        return AttackResult(
            run_id=self.run_id, config=self.config, state=state, initial=initial, final=final,
            seconds_per_step=sum(times) / len(times) if times else None,
        )  # fmt: skip

    def _store(self, result: ItemResult) -> None:
        """Commit a step before the next one starts; a step the store refused ends the attack.

        A kill loses at most the step under way; a refused row would leave a gap that a
        "completed" run must never have (and a resume could not fill in order).
        """
        self.writer.put_result(self.run_id, result)
        self.writer.flush()
        if self.writer.rejected:
            item, reason = self.writer.rejected[0]
            raise StoreError(f"the store refused {item} of GCG run {self.run_id}: {reason}")

    def _block(self, step: int) -> int:
        """Which instances step `step + 1` attacks: a new block every `resample_every` steps."""
        every = self.config.resample_every
        return step // every if every else 0

    def _block_prompts(self, block: int) -> list[AttackPrompt]:
        return self.rule.sample(f"gcg:{self.config.gcg.seed}:{block}", self.config.instances)

    def _measure(self, attack: GcgAttack, state: GcgState) -> tuple[HeldOut, HeldOut]:
        """The initial and the final suffix on the held-out instances, one at a time."""
        suffixes: Sequence[Sequence[int]] = [
            encode(self.loaded, self.config.gcg.optim_str_init),
            state.suffix_ids,
        ]
        prompts = self.rule.sample(f"gcg-heldout:{self.config.gcg.seed}", self.config.heldout)
        per_prompt = [attack.retarget([prompt]).evaluate(suffixes) for prompt in prompts]
        measured = [
            HeldOut(
                suffix=attack.decode(ids),
                loss=sum(losses[i] for losses, _ in per_prompt) / len(prompts),
                reached=sum(hits[i] for _, hits in per_prompt),
                instances=len(prompts),
            )
            for i, ids in enumerate(suffixes)
        ]
        return measured[0], measured[1]


def _notes(result: AttackResult) -> dict[str, JsonValue]:
    """What `runs show` and a reader of the run need: the suffix and the held-out measures."""
    return {
        "suffix": result.suffix,
        "steps": result.state.step,
        "heldout_initial": result.initial.model_dump(mode="json"),
        "heldout_final": result.final.model_dump(mode="json"),
        "seconds_per_step": result.seconds_per_step,
    }
