"""`rulebench attack gcg --shard I/N`: the rules named split by id, an attack run per rule.

The split is checked on the rule list alone; one tiny attack per shard (1 step of 8
candidates, a 4-token suffix, 1 held-out instance, the embedded model in float32 on the CPU)
checks the stored runs, their reuse and `runs merge`.
"""

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from rulebench.attack.attack_run import AttackConfig, attack_config
from rulebench.attack.gcg.settings import gcg_settings
from rulebench.attack.target_shards import named_targets, shard_configs, target_id
from rulebench.cli.app import app
from rulebench.core.errors import ConfigError
from rulebench.core.run_kinds import GCG_TASK
from rulebench.core.shards import Shard
from rulebench.engine.store.database import Store

runner = CliRunner()
TINY = [
    "--steps", "1", "--search-width", "8", "--topk", "8", "--init", "x x x x", "--heldout", "1",
    "--device", "cpu", "--dtype", "float32",
]  # fmt: skip


def config_for(scenario: str, behavior: str) -> AttackConfig:
    return attack_config(None, scenario, behavior)


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_every_rule_falls_in_exactly_one_shard(count: int) -> None:
    targets = named_targets(None, None)
    pieces = [
        {
            (c.scenario, c.behavior)
            for c in shard_configs(targets, Shard(index=i, count=count), config_for)
        }
        for i in range(1, count + 1)
    ]
    assert sum(map(len, pieces)) == len(targets) == len(set(targets))
    assert set().union(*pieces) == set(targets)


def test_the_split_follows_the_rules_not_their_order() -> None:
    targets = named_targets(None, None)
    shard = Shard(index=2, count=3)
    forward = {c.behavior for c in shard_configs(targets, shard, config_for)}
    backward = {c.behavior for c in shard_configs(targets[::-1], shard, config_for)}
    assert forward == backward
    assert forward == {b for s, b in targets if shard.holds(target_id(s, b))}


def test_the_rules_named_are_one_a_scenarios_or_all() -> None:
    assert named_targets("Authentication", "Authentication_provide") == [
        ("Authentication", "Authentication_provide")
    ]
    assert {b for _, b in named_targets("Millionaires", None)} == {
        "Millionaires_withhold",
        "Millionaires_identify",
    }
    assert named_targets("Encryption", None) == [("Encryption", "Encryption")]
    assert len(named_targets(None, None)) > len(named_targets("Authentication", None))
    with pytest.raises(ConfigError, match="--rule needs --scenario"):
        named_targets(None, "Encryption")
    with pytest.raises(ConfigError, match="Did you mean"):
        named_targets("Encription", None)


@pytest.fixture
def one_torch_thread() -> Iterator[None]:
    """One torch thread: fast on a busy 2-core machine (restored afterwards)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    yield
    torch.set_num_threads(before)


def attack(store: Path, *args: str) -> dict[str, Any]:
    made = runner.invoke(
        app, ["attack", "gcg", "--scenario", "Millionaires", *TINY, "--store", str(store), *args]
    )
    assert made.exit_code == 0, made.output
    payload: dict[str, Any] = json.loads(made.stdout)
    return payload


def stored(store: Path) -> dict[str, tuple[Any, ...]]:
    """Each GCG run of a store: its config, status, shard note and steps."""
    with Store(store, readonly=True) as db:
        return {
            run.id: (
                run.config,
                run.status,
                run.notes.get("shard"),
                sorted((r.item_id, r.reply) for r in db.iter_results(run.id)),
            )
            for run in db.list_runs()
            if run.task == GCG_TASK
        }


@pytest.mark.slow
@pytest.mark.usefixtures("one_torch_thread")
def test_two_shards_attack_each_rule_once_and_merge_as_separate_runs(tmp_path: Path) -> None:
    stores = [tmp_path / "s1.sqlite", tmp_path / "s2.sqlite"]
    shards = [
        attack(store, "--shard", f"{index}/2", "--json", "-o", str(tmp_path / f"o{index}"))
        for index, store in enumerate(stores, 1)
    ]
    behaviors = [a["config"]["behavior"] for shard in shards for a in shard["attacks"]]
    assert sorted(behaviors) == ["Millionaires_identify", "Millionaires_withhold"]
    gcg = gcg_settings(num_steps=1, search_width=8, topk=8, optim_str_init="x x x x")
    for index, (store, shard) in enumerate(zip(stores, shards, strict=True), 1):
        assert (shard["shard"], shard["targets"]) == (f"{index}/2", 2)
        [(run_id, (config, status, note, steps))] = stored(store).items()
        assert status == "completed" and note == {"index": index, "count": 2, "targets": 2}
        # The same attack as the rule run alone: its config holds no shard.
        alone = attack_config(
            None, "Millionaires", config["behavior"], gcg=gcg, heldout=1, device="cpu",
            dtype="float32",
        )  # fmt: skip
        assert config == alone.model_dump(mode="json") and len(steps) == 2  # initial + 1 step
        assert (tmp_path / f"o{index}" / f"gcg-{run_id}" / "suffix.txt").exists()

    again = attack(stores[0], "--shard", "1/2", "--json")
    assert [a["how"] for a in again["attacks"]] == ["reused"]
    assert again["attacks"][0]["run_id"] == shards[0]["attacks"][0]["run_id"]
    assert len(stored(stores[0])) == 1

    merged = tmp_path / "merged.sqlite"
    joined = runner.invoke(app, ["runs", "merge", *map(str, stores), "--into", str(merged)])
    assert joined.exit_code == 0, joined.output
    assert stored(merged) == stored(stores[0]) | stored(stores[1])


def test_a_shard_holding_no_rule_attacks_nothing(tmp_path: Path) -> None:
    # Encryption has one rule: of 2 shards, one holds it and the other nothing.
    [empty] = [i for i in (1, 2) if not Shard(index=i, count=2).holds("Encryption/Encryption")]
    made = runner.invoke(
        app,
        ["attack", "gcg", "--scenario", "Encryption", *TINY, "--shard", f"{empty}/2", "--json",
         "--store", str(tmp_path / "s.sqlite")],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    assert json.loads(made.stdout) == {"shard": f"{empty}/2", "targets": 1, "attacks": []}
    assert stored(tmp_path / "s.sqlite") == {}


def test_a_bad_shard_or_one_with_resume_is_refused(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    bad = runner.invoke(app, ["attack", "gcg", "--shard", "3/2", "--store", store])
    assert isinstance(bad.exception, ConfigError)
    assert "--shard '3/2': shard 3 of 2 does not exist" in str(bad.exception)
    resumed = runner.invoke(
        app, ["attack", "gcg", "--resume", "x", "--shard", "1/2", "--store", store]
    )
    assert isinstance(resumed.exception, ConfigError) and "--shard" in str(resumed.exception)
