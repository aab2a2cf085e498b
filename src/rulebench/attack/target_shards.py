"""GCG attacks split over shards: the rules an attack command names, an attack run each.

One attack optimises one suffix for one rule, step after step, so it cannot itself be split;
a cluster splits the rules instead. Each target (a scenario's rule) goes to a shard by its id,
`scenario/behavior` (its content, never its place in a list), through `core.shards` as items
do. Every attack of a shard is an ordinary GCG run whose config is the one the attack has run
alone, so a rule's attack is the same run sharded or not, found again and resumed by that
config; its notes name the shard (`index`, `count`, and `targets`, the whole's count).
`rulebench runs merge` copies the shards' attack runs as separate runs, one per rule: an
attack has no items that several shards would share.
"""

from collections.abc import Callable, Sequence
from typing import Literal, NamedTuple, Protocol

from pydantic import JsonValue

from rulebench.attack.attack_run import (
    AttackConfig,
    AttackContext,
    AttackProgress,
    AttackResult,
    finished_attack,
    resume_attack,
    run_attack,
)
from rulebench.attack.gcg.prompt import load_attack_model
from rulebench.attack.instances import check_rule
from rulebench.attack.targets import rule_targets
from rulebench.core.errors import ConfigError
from rulebench.core.run_kinds import GCG_TASK
from rulebench.core.shards import Shard
from rulebench.engine.run_lookup import RUNS_SCANNED
from rulebench.engine.store.database import Store
from rulebench.engine.store.records import RunRecord
from rulebench.models.hf.loading import LoadedModel

How = Literal["new", "resumed", "reused"]
"""new: started now; resumed: a stopped attack finished; reused: completed earlier."""


class ShardAttack(NamedTuple):
    """One attack of a shard: how it came about and how it ended."""

    how: How
    result: AttackResult


class ShardProgress(AttackProgress, Protocol):
    """An attack's progress, told also which target of the shard comes next."""

    def target(self, number: int, total: int, config: AttackConfig, how: How) -> None:
        """Target `number` (from 1) of the shard's `total` is next, and how it will run."""


def target_id(scenario: str, behavior: str) -> str:
    """A rule's id as a shard reads it: its names, so the split follows no list's order."""
    return f"{scenario}/{behavior}"


def named_targets(scenario: str | None, behavior: str | None) -> list[tuple[str, str]]:
    """The rules a sharded attack splits: the one named, a scenario's, or every v3 rule.

    Raises:
        ConfigError: --rule without --scenario, an unknown scenario or rule, a v1-only one.
    """
    if scenario is None:
        if behavior is not None:
            raise ConfigError("--rule needs --scenario (the scenario the rule belongs to)")
        return [(target.scenario, target.behavior) for target in rule_targets()]
    if behavior is not None:
        return [(scenario, check_rule(scenario, behavior))]
    found = [(t.scenario, t.behavior) for t in rule_targets() if t.scenario == scenario]
    return found or [(scenario, check_rule(scenario, None))]  # check_rule names the problem


def shard_configs(
    targets: Sequence[tuple[str, str]], shard: Shard, config_for: Callable[[str, str], AttackConfig]
) -> list[AttackConfig]:
    """The attacks of the targets that fall in `shard`, in the targets' order."""
    return [
        config_for(scenario, behavior)
        for scenario, behavior in targets
        if shard.holds(target_id(scenario, behavior))
    ]


def run_shard(
    configs: Sequence[AttackConfig],
    place: tuple[Shard, int],
    store: Store,
    progress: ShardProgress,
) -> list[ShardAttack]:
    """Run, resume or reuse each attack of a shard in turn, loading the model once.

    Args:
        configs: the shard's attacks (`shard_configs`), one model, device and dtype.
        place: the shard, and how many targets the whole has (recorded in each run's notes).
        store: where the attacks are stored and looked up.
        progress: told of each target, then of its steps.
    """
    shard, whole = place
    notes: dict[str, JsonValue] = {
        "shard": {"index": shard.index, "count": shard.count, "targets": whole}
    }
    runs = [run for run in store.list_runs(limit=RUNS_SCANNED) if run.task == GCG_TASK]
    loaded: LoadedModel | None = None
    done: list[ShardAttack] = []
    for number, config in enumerate(configs, start=1):
        stored = _stored_attack(runs, config)
        finished = None if stored is None else finished_attack(store, stored.id)
        how: How = "reused" if finished else "new" if stored is None else "resumed"
        progress.target(number, len(configs), config, how)
        if finished is not None:
            done.append(ShardAttack(how, finished))
            continue
        loaded = loaded or load_attack_model(config.model, config.device, config.dtype)
        context = AttackContext(loaded=loaded, notes=notes)
        if stored is None:
            result = run_attack(config, store, progress, context)
        else:
            result = resume_attack(stored.id, store, progress, context)
        done.append(ShardAttack(how, result))
    return done


def _stored_attack(runs: Sequence[RunRecord], config: AttackConfig) -> RunRecord | None:
    """The stored attack of this config: the latest completed one, else the latest other."""
    wanted = config.model_dump(mode="json")
    matching = [run for run in runs if run.config == wanted]
    completed = [run for run in matching if run.status == "completed"]
    return next(iter(completed or matching), None)
