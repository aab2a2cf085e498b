"""The options of `rulebench attack gcg` as a front end takes them, turned into attack configs.

A front end fills `AttackOptions` with what its user gave and calls `prepare_attack`: the
GCG settings are merged once (preset, file, single options: `gcg.settings`), the rule or a
shard's rules are checked, and the lines said before the search are composed here, so every
front end stores the same configs and says the same things. A resumed attack takes its
settings from its stored run, so options that define an attack are refused beside --resume.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from rulebench.attack.attack_notes import settings_line, shard_line
from rulebench.attack.attack_run import AttackConfig, Device, DType, attack_config, run_attack
from rulebench.attack.gcg.config import GcgConfig, search_size
from rulebench.attack.gcg.settings import gcg_settings
from rulebench.attack.target_shards import (
    ShardAttack,
    ShardProgress,
    named_targets,
    run_shard,
    shard_configs,
)
from rulebench.core.errors import ConfigError
from rulebench.core.shards import Shard, parse_shard
from rulebench.engine.store.database import Store
from rulebench.scenarios.protocol import Placement, Protocol

MISSING_SCENARIO = "give --scenario (or --resume RUN)"
"""Said when an unsharded attack names no scenario."""


class AttackOptions(BaseModel):
    """The options of `attack gcg`, named as the command line spells them.

    Each is None (or False) unless given. A field with a docstring is its option's help
    (`use_attribute_docstrings`); the others fill the config field `FILLS` names, whose
    docstring and bounds are the help. An option left out takes that config's default;
    `resume` continues a stored attack instead.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    scenario: str | None = None
    """Scenario to attack (`rulebench list gcg-targets` shows each rule's target)."""
    rule: str | None = None
    """The rule (behavior) to break; needed where the scenario has several."""
    model: str | None = None
    full: bool = Field(
        default=False,
        description=f"The paper's search: {search_size(GcgConfig.preset('paper'))}.",
    )
    steps: int | None = None
    search_width: int | None = None
    topk: int | None = None
    suffix_length: int | None = Field(default=None, ge=1)
    """Tokens of the initial suffix ('x x x ...')."""
    init: str | None = None
    """The initial suffix itself (instead of --suffix-length x's)."""
    instances: int | None = None
    resample_every: int | None = None
    heldout: int | None = None
    placement: Placement | None = None
    """Instruction placement; match the `run scenarios` you will test on."""
    no_reminders: bool = False
    """Drop the precedence reminders."""
    gcg_config: Path | None = None
    """JSON file of GCG options under nanogcg's names (num_steps, search_width, topk,
    n_replace, buffer_size, use_mellowmax, early_stop, ...); the other options given override
    it."""
    seed: int | None = None
    device: Device | None = None
    dtype: DType | None = None
    resume: str | None = None
    """Continue a stopped attack (run id) from its last stored step; other options are the
    run's own."""
    shard: str | None = None
    """Attack only shard I of N (1-based) of the rules --scenario and --rule name (every v3
    rule without --scenario, a scenario's rules without --rule), split by rule; each rule is an
    attack run of its own. `auto` reads a Slurm job array, `auto/N` a Kubernetes indexed Job.
    `rulebench runs merge` copies the shards' runs into one store."""


FILLS: dict[str, tuple[type[BaseModel], str]] = {
    "model": (AttackConfig, "model"),
    "steps": (GcgConfig, "num_steps"),
    "search_width": (GcgConfig, "search_width"),
    "topk": (GcgConfig, "topk"),
    "instances": (AttackConfig, "instances"),
    "resample_every": (AttackConfig, "resample_every"),
    "heldout": (AttackConfig, "heldout"),
    "placement": (Protocol, "placement"),
    "seed": (GcgConfig, "seed"),
    "device": (AttackConfig, "device"),
    "dtype": (AttackConfig, "dtype"),
}
"""The config field each option fills, where --help shows that field's default: its docstring
is the option's help unless the option has its own. (--init fills `optim_str_init`, whose
default --suffix-length describes.)"""


class PreparedAttack(NamedTuple):
    """The attacks some options make, and what a front end says before the search."""

    configs: tuple[AttackConfig, ...]
    """One attack, or a shard's (none where the shard holds no rule)."""
    shard: Shard | None
    """The shard attacked (None: one attack, not sharded)."""
    targets: int
    """How many rules the options name (those of every shard)."""
    notes: tuple[str, ...]
    """Said before the search: the shard's share, then the first attack's settings."""


def prepare_attack(
    options: AttackOptions, environ: Mapping[str, str] | None = None
) -> PreparedAttack:
    """The validated configs of a new attack, or of a shard's (`shard`: `I/N|auto|auto/N`).

    Args:
        options: the options given (not `resume`: `refuse_options_on_resume` takes those).
        environ: the environment `auto` reads a scheduler's index from (the CLI's os.environ).

    Raises:
        ConfigError: no scenario, an unknown scenario or rule, an unreadable GCG file, a bad
            shard, or settings out of range.
    """
    shard = options.shard
    if options.scenario is None and shard is None:
        raise ConfigError(MISSING_SCENARIO)
    settings = attack_settings(options)

    def config_for(scenario: str, rule: str | None) -> AttackConfig:
        return attack_config(options.model, scenario, rule, **settings)

    if shard is None:
        assert options.scenario is not None  # refused above unless sharded
        config = config_for(options.scenario, options.rule)
        return PreparedAttack((config,), None, 1, (settings_line(config, options.full),))
    targets = named_targets(options.scenario, options.rule)
    piece = parse_shard(shard, environ or {})
    configs = tuple(shard_configs(targets, piece, config_for))
    first = [settings_line(configs[0], options.full)] if configs else []
    notes = (shard_line(piece, len(configs), len(targets)), *first)
    return PreparedAttack(configs, piece, len(targets), notes)


def attack_settings(options: AttackOptions) -> dict[str, object]:
    """A new attack's settings (GCG's, the protocol, instances, device) from its options."""
    gcg = gcg_settings(
        "paper" if options.full else "quick", options.gcg_config,
        suffix_length=options.suffix_length, num_steps=options.steps,
        search_width=options.search_width, topk=options.topk, seed=options.seed,
        optim_str_init=options.init,
    )  # fmt: skip
    protocol = {
        "placement": options.placement,
        "reminders": False if options.no_reminders else None,
    }
    names = ("instances", "resample_every", "heldout", "device", "dtype")
    return {
        "gcg": gcg,
        "protocol": Protocol(**{k: v for k, v in protocol.items() if v is not None}),
        **{name: getattr(options, name) for name in names},
    }


def refuse_options_on_resume(options: AttackOptions) -> None:
    """--resume continues a run with its stored settings: another option would be ignored.

    Raises:
        ConfigError: naming each option given (as `--<option>`) beside `resume`.
    """
    given = [
        f"--{name.replace('_', '-')}"
        for name, info in AttackOptions.model_fields.items()
        if name != "resume" and getattr(options, name) != info.default
    ]
    if given:
        raise ConfigError(
            f"--resume continues the attack with its own stored settings: drop "
            f"{', '.join(given)} (or start a new attack without --resume)"
        )


def run_prepared(
    prepared: PreparedAttack, store: Store, progress: ShardProgress
) -> list[ShardAttack]:
    """Run the prepared attack, or a shard's in turn (each reused, resumed or new)."""
    if prepared.shard is None:
        [config] = prepared.configs
        return [ShardAttack("new", run_attack(config, store, progress))]
    return run_shard(prepared.configs, (prepared.shard, prepared.targets), store, progress)


def output_folder(output: Path | None, run_id: str, is_shard: bool) -> Path | None:
    """Where an attack's files go: `output` for one attack, its gcg-<run id>/ for a shard's.

    None: the default folder, gcg-<run id>/ beside the store (`study.gcg_outputs`).
    """
    if output is None or not is_shard:
        return output
    return output / f"gcg-{run_id}"
