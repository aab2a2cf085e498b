"""`rulebench attack gcg`: optimise an adversarial suffix against one scenario rule."""

import os
from collections.abc import Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer

from rulebench.attack.attack_run import AttackConfig
from rulebench.attack.gcg.config import PRESETS, SUFFIX_LENGTH, GcgConfig
from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.cli.field_options import field_option
from rulebench.cli.option_stack import with_options
from rulebench.cli.progress import StepBar
from rulebench.cli.study_options import (
    STUDY_DEFAULTS,
    StudyOptions,
    output_option,
    study_options,
)
from rulebench.scenarios.protocol import Protocol

if TYPE_CHECKING:
    from rulebench.attack.attack_run import AttackResult
    from rulebench.attack.target_shards import How, ShardAttack
    from rulebench.core.shards import Shard
    from rulebench.engine.store import Store

_PAPER = PRESETS["paper"]


@with_options(
    study=study_options(
        output_option(
            "Folder for suffix.txt, attack.json and the loss curve.",
            "gcg-<run id>/ beside the store",
        )
    )
)
def gcg(
    ctx: typer.Context,
    scenario: Annotated[
        str | None,
        typer.Option(
            help="Scenario to attack (`rulebench list gcg-targets` shows each rule's target).",
            show_default=False,
        ),
    ] = None,
    rule: Annotated[
        str | None,
        typer.Option(
            help="The rule (behavior) to break; needed where the scenario has several.",
            show_default=False,
        ),
    ] = None,
    model: Annotated[
        str | None,
        field_option(
            AttackConfig,
            "model",
            "--model",
            "-m",
            help="hf/<folder, .gguf or cached hub id>: GCG needs gradients.",
        ),
    ] = None,
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help=f"The paper's search: {_PAPER['num_steps']} steps, {_PAPER['search_width']} "
            f"candidates from the top {_PAPER['topk']}.",
        ),
    ] = False,
    steps: Annotated[
        int | None,
        field_option(GcgConfig, "num_steps", "--steps"),
    ] = None,
    search_width: Annotated[
        int | None,
        field_option(GcgConfig, "search_width"),
    ] = None,
    topk: Annotated[
        int | None,
        field_option(GcgConfig, "topk"),
    ] = None,
    suffix_length: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Tokens of the initial suffix ('x x x ...').",
            show_default=str(SUFFIX_LENGTH),
        ),
    ] = None,
    init: Annotated[
        str | None,
        typer.Option(
            help="The initial suffix itself (instead of --suffix-length x's).", show_default=False
        ),
    ] = None,
    instances: Annotated[
        int | None,
        field_option(AttackConfig, "instances"),
    ] = None,
    resample_every: Annotated[
        int | None,
        field_option(AttackConfig, "resample_every"),
    ] = None,
    heldout: Annotated[
        int | None,
        field_option(AttackConfig, "heldout"),
    ] = None,
    placement: Annotated[
        Literal["user", "system"] | None,
        field_option(
            Protocol,
            "placement",
            help="Instruction placement; match the `run scenarios` you will test on.",
        ),
    ] = None,
    no_reminders: Annotated[
        bool, typer.Option("--no-reminders", help="Drop the precedence reminders.")
    ] = False,
    gcg_config: Annotated[
        Path | None,
        typer.Option(
            help="JSON file of GCG options under nanogcg's names (num_steps, "
            "search_width, topk, n_replace, buffer_size, use_mellowmax, early_stop, ...); "
            "the options above override it.",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[
        int | None,
        field_option(GcgConfig, "seed", help="Seeds candidate sampling and instances."),
    ] = None,
    device: Annotated[
        Literal["auto", "cpu", "cuda", "mps"] | None,
        field_option(AttackConfig, "device"),
    ] = None,
    dtype: Annotated[
        Literal["auto", "float32", "bfloat16", "float16"] | None,
        field_option(AttackConfig, "dtype"),
    ] = None,
    resume: Annotated[
        str | None,
        typer.Option(
            help="Continue a stopped attack (run id) from its last stored step; other options "
            "are the run's own.",
            show_default=False,
        ),
    ] = None,
    study: StudyOptions = STUDY_DEFAULTS,
    shard: Annotated[
        str | None,
        typer.Option(
            "--shard",
            metavar="<I/N>",
            help="Attack only shard I of N (1-based) of the rules --scenario and --rule name "
            "(every v3 rule without --scenario, a scenario's rules without --rule), split by "
            "rule; each rule is an attack run of its own. `auto` reads a Slurm job array, "
            "`auto/N` a Kubernetes indexed Job. `rulebench runs merge` copies the shards' runs "
            "into one store.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Find a suffix that makes the model start its reply with a rule-breaking target.

    Greedy Coordinate Gradient (nanogcg's option names and defaults, with --full)
    on the rule's attack case: the suffix joins the case's first user message; the
    loss is averaged over scenario instances re-sampled every --resample-every
    steps. Every step is stored as a run (`--resume RUN` continues a killed one);
    at the end the initial and final suffix are measured on --heldout unseen
    instances. Test the suffix with `rulebench run scenarios --suffix RUN`.

    With --shard I/N the rules named are split over N shards: this process
    attacks its shard's rules one after another, each a run of its own (the same
    command again reuses completed ones and resumes stopped ones).
    """
    from rulebench.attack.attack_run import attack_config, run_attack
    from rulebench.attack.target_shards import named_targets, shard_configs
    from rulebench.core.shards import parse_shard
    from rulebench.engine.store import Store
    from rulebench.study.gcg_outputs import write_attack_outputs

    progress = _AttackBar()
    with Store(study.store) as db, _stopped_by_signal(progress, study.store):
        if resume is not None:
            if (result := _resumed(ctx, resume, db, progress)) is None:
                return
        else:
            if scenario is None and shard is None:
                raise typer.BadParameter("give --scenario (or --resume RUN)")
            settings = _attack_settings(ctx.params)
            if shard is not None:
                targets = named_targets(scenario, rule)
                piece = parse_shard(shard, os.environ)
                configs = shard_configs(
                    targets, piece, lambda s, b: attack_config(model, s, b, **settings)
                )
                shown = (progress, full, study.as_json)
                _run_shard(configs, (piece, len(targets)), db, shown, study.output)
                return
            assert scenario is not None  # refused above unless sharded
            config = attack_config(model, scenario, rule, **settings)
            _print_settings(config, full)
            with progress:
                result = run_attack(config, db, progress)
        written = write_attack_outputs(result, db, study.output)
    if study.as_json:
        out.print_json(result.model_dump_json())
        return
    _print_result(result, written)


def _resumed(
    ctx: typer.Context, run_id: str, db: "Store", progress: "_AttackBar"
) -> "AttackResult | None":
    """The resumed attack's result, or None for one that had finished (and is said so)."""
    from rulebench.attack.attack_run import finished_attack, resume_attack

    _refuse_settings_on_resume(ctx)
    if (finished := finished_attack(db, run_id)) is not None:
        _say_finished(finished)
        return None
    with progress:
        return resume_attack(run_id, db, progress)


def _attack_settings(given: Mapping[str, Any]) -> dict[str, object]:
    """A new attack's settings (GCG's, the protocol, instances, device) from its options."""
    from rulebench.attack.gcg.settings import gcg_settings

    gcg_options = gcg_settings(
        "paper" if given["full"] else "quick", given["gcg_config"],
        suffix_length=given["suffix_length"], num_steps=given["steps"],
        search_width=given["search_width"], topk=given["topk"], seed=given["seed"],
        optim_str_init=given["init"],
    )  # fmt: skip
    protocol = {
        "placement": given["placement"],
        "reminders": False if given["no_reminders"] else None,
    }
    names = ("instances", "resample_every", "heldout", "device", "dtype")
    return {
        "gcg": gcg_options,
        "protocol": Protocol(**{k: v for k, v in protocol.items() if v is not None}),
        **{name: given[name] for name in names},
    }


def _stopped_by_signal(
    progress: "_AttackBar", store: Path | None
) -> "AbstractContextManager[object]":
    """SIGINT or SIGTERM: the step under way is finished and stored, then the attack stops."""
    from rulebench.cli.interrupts import same_command, stopped_by_signal

    def what_is_kept() -> str:
        if progress.run_id is None:
            return "No step was stored yet."
        return "Steps so far are stored."

    def resume() -> str | None:
        if progress.run_id is None:
            return None
        if progress.is_shard:  # the same command reuses finished rules and resumes this one
            return same_command()
        return opt.resume_command(progress.run_id, store, "attack gcg")

    return stopped_by_signal(what_is_kept, resume)


def _say_finished(result: "AttackResult") -> None:
    """--resume of a completed attack: it is left as it is; say where its suffix is."""
    from rulebench.report.untrusted import safe_text

    err.print(
        safe_text(
            f"attack {result.run_id} is finished ({result.state.step} steps): nothing to "
            f"resume, nothing written. Its suffix: {result.suffix!r}; test it with `rulebench "
            f"run scenarios --scenario {result.config.scenario} --suffix {result.run_id}`"
        ),
        highlight=False,
        soft_wrap=True,
    )


_OWN_OPTIONS = ("resume", "output", "store", "as_json")
"""Options that do not define an attack: the only ones --resume takes."""


def _refuse_settings_on_resume(ctx: typer.Context) -> None:
    """--resume continues a run with its stored settings: a changed one would be ignored."""
    from rulebench.core.errors import ConfigError

    given = opt.given_flags(ctx, (name for name in ctx.params if name not in _OWN_OPTIONS))
    if given:
        raise ConfigError(
            f"--resume continues the attack with its own stored settings: drop "
            f"{', '.join(given)} (or start a new attack without --resume)"
        )


def _print_settings(config: AttackConfig, full: bool) -> None:
    """Every setting on stderr before the search starts: what was defaulted is visible."""
    from rulebench.report.untrusted import safe_text

    gcg = config.gcg
    paper = (_PAPER["num_steps"], _PAPER["search_width"], _PAPER["topk"])
    sizes = "" if full else " (--full: {} steps, {} candidates, top-{})".format(*paper)
    err.print(
        safe_text(
            f"gcg: {config.model} on {config.scenario}/{config.behavior}: {gcg.num_steps} steps, "
            f"{gcg.search_width} candidates from the top {gcg.topk}, n_replace {gcg.n_replace}, "
            f"suffix {gcg.optim_str_init!r}, {config.instances} instance(s) re-sampled every "
            f"{config.resample_every or 'never'} step(s), {config.heldout} held out, "
            f"{config.protocol.label()}, seed {gcg.seed}{sizes}"
        ),
        highlight=False,
    )


def _print_result(result: "AttackResult", written: list[Path]) -> None:
    from rulebench.report.untrusted import safe_text

    initial, final = result.initial, result.final
    per_step = "-" if result.seconds_per_step is None else f"{result.seconds_per_step:.2f} s/step"
    lines = [
        f"run {result.run_id}: {result.state.step} steps ({per_step})",
        f"suffix: {result.suffix!r}",
        f"held-out target loss: {initial.loss:.4f} -> {final.loss:.4f}; targets reproduced "
        f"{initial.reached}/{initial.instances} -> {final.reached}/{final.instances}",
        f"written: {', '.join(str(path) for path in written)}",
        f"next: rulebench run scenarios --scenario {result.config.scenario} --suffix "
        f"{result.run_id}",
    ]
    for line in lines:
        out.print(safe_text(line), highlight=False, soft_wrap=True)


class _AttackBar(StepBar):
    """The search's progress (step, loss, current suffix) as a rich bar on stderr."""

    run_id: str | None = None
    """The attack's run, once it has begun."""
    is_shard: bool = False
    """Attacking a shard's rules (`--shard`), one after another."""

    def target(self, number: int, total: int, config: AttackConfig, how: "How") -> None:
        """A shard's next rule: which, and whether it is reused, resumed or new."""
        from rulebench.report.untrusted import safe_text

        self.is_shard = True
        said = {"reused": " (completed earlier: not run again)", "resumed": " (resuming)"}
        err.print(
            safe_text(
                f"rule {number} of {total}: {config.scenario}/{config.behavior}{said.get(how, '')}"
            ),
            highlight=False,
        )

    def begin(self, run_id: str, total_steps: int, done_steps: int) -> None:
        """The search starts (a resumed one part-way)."""
        self.run_id = run_id
        self.start_steps(f"gcg {run_id}", total_steps, done_steps)

    def update(self, step: int, loss: float, suffix: str) -> None:
        """Move to `step`, showing its loss and suffix."""
        self.show(step, loss, repr(suffix if len(suffix) <= 40 else suffix[:37] + "..."))


def _run_shard(
    configs: "list[AttackConfig]",
    place: "tuple[Shard, int]",
    store: "Store",
    shown: "tuple[_AttackBar, bool, bool]",
    output: Path | None,
) -> None:
    """Attack a shard's rules in turn; each one's files go to gcg-<run id>/ (under --output).

    `shown` is the progress bar, whether --full was given, and whether to print JSON.
    """
    from rulebench.attack.target_shards import run_shard
    from rulebench.report.untrusted import safe_text
    from rulebench.study.gcg_outputs import write_attack_outputs

    progress, full, as_json = shown
    piece, whole = place
    err.print(
        f"gcg shard {piece}: {len(configs)} of the {whole} rule(s) named fall in this shard",
        highlight=False,
    )
    if configs:
        _print_settings(configs[0], full)
    with progress:
        attacks = run_shard(configs, place, store, progress)
    for attack in attacks:
        folder = None if output is None else output / f"gcg-{attack.result.run_id}"
        written = write_attack_outputs(attack.result, store, folder)
        if as_json:
            continue
        config = attack.result.config
        out.print(safe_text(f"{config.scenario}/{config.behavior} ({attack.how}):"), style="bold")
        _print_result(attack.result, written)
    if as_json:
        out.print_json(data=_shard_json(piece, whole, attacks))


def _shard_json(shard: "Shard", whole: int, attacks: "list[ShardAttack]") -> object:
    """A shard's attacks as --json prints them: the shard, the whole's rule count, each attack."""
    return {
        "shard": str(shard),
        "targets": whole,
        "attacks": [
            {"how": attack.how, **attack.result.model_dump(mode="json")} for attack in attacks
        ],
    }
