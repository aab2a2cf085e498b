"""`attack gcg`'s options become configs in the library: the same for every front end.

No model: options are turned into configs and lines only; nothing is loaded or run.
"""

import json
from pathlib import Path

import pytest

from rulebench.attack.attack_notes import (
    finished_line,
    result_lines,
    settings_line,
    shard_json,
    shown_suffix,
    target_line,
)
from rulebench.attack.attack_options import (
    FILLS,
    MISSING_SCENARIO,
    AttackOptions,
    attack_settings,
    output_folder,
    prepare_attack,
    refuse_options_on_resume,
)
from rulebench.attack.attack_run import AttackConfig, AttackResult, HeldOut, attack_config
from rulebench.attack.gcg.config import PRESETS, GcgConfig, search_size
from rulebench.attack.gcg.search import GcgState, ScoredSuffix
from rulebench.attack.gcg.settings import gcg_settings
from rulebench.attack.target_shards import ShardAttack, named_targets, target_id
from rulebench.core.errors import ConfigError
from rulebench.core.shards import Shard
from rulebench.scenarios.protocol import Protocol

STORED_BEFORE = {
    "model": "hf/SmolLM2-135M-Instruct", "scenario": "Encryption", "behavior": "Encryption",
    "gcg": {
        "num_steps": 250, "optim_str_init": "x x x x x x x x x x x x x x x x x x x x",
        "search_width": 64, "batch_size": None, "topk": 64, "n_replace": 1, "buffer_size": 0,
        "use_mellowmax": False, "mellowmax_alpha": 1.0, "early_stop": False,
        "use_prefix_cache": True, "allow_non_ascii": False, "filter_ids": True,
        "add_space_before_target": False, "seed": 0,
    },
    "instances": 1, "resample_every": 1, "heldout": 8,
    "protocol": {
        "placement": "user", "reminders": True, "system_message": None, "mode": "compat",
        "prompts": "rulebench", "upstream": None,
    },
    "device": "auto", "dtype": "auto",
}  # fmt: skip
"""A default attack's config as runs stored it before its fields had docstrings."""


def test_a_stored_attack_config_reads_back_and_dumps_as_it_was_stored() -> None:
    config = AttackConfig.model_validate(STORED_BEFORE)
    assert config == AttackConfig(scenario="Encryption", behavior="Encryption")
    assert config.model_dump(mode="json") == STORED_BEFORE
    # Key order too: a run's config is stored as JSON text.
    assert json.dumps(config.model_dump(mode="json")) == json.dumps(STORED_BEFORE)


def test_every_option_has_help_from_itself_or_the_field_it_fills() -> None:
    for name, info in AttackOptions.model_fields.items():
        filled = FILLS.get(name)
        if not info.description:  # the help is the docstring of the config field it fills
            assert filled is not None, name
            config, field = filled
            assert config.model_fields[field].description, f"{config.__name__}.{field}"
    assert "{" not in (AttackOptions.model_fields["full"].description or "")
    assert search_size(GcgConfig.preset("paper")) in str(
        AttackOptions.model_fields["full"].description
    )


def test_options_make_the_config_the_python_api_makes(tmp_path: Path) -> None:
    file = tmp_path / "gcg.json"
    file.write_text('{"n_replace": 2, "num_steps": 9}', encoding="utf-8")
    options = AttackOptions(
        scenario="Encryption", full=True, steps=3, seed=4, gcg_config=file, heldout=2,
        placement="system", no_reminders=True, device="cpu",
    )  # fmt: skip
    prepared = prepare_attack(options)
    gcg = gcg_settings("paper", file, num_steps=3, seed=4)
    protocol = Protocol(placement="system", reminders=False)
    expected = attack_config(
        None, "Encryption", None, gcg=gcg, heldout=2, protocol=protocol, device="cpu"
    )
    assert prepared.configs == (expected,) and prepared.shard is None and prepared.targets == 1
    assert (expected.gcg.n_replace, expected.gcg.search_width) == (
        2,
        PRESETS["paper"]["search_width"],
    )
    assert prepared.notes == (settings_line(expected, True),)


def test_options_left_out_take_the_configs_defaults() -> None:
    prepared = prepare_attack(AttackOptions(scenario="Encryption"))
    assert prepared.configs == (AttackConfig(scenario="Encryption", behavior="Encryption"),)
    assert attack_settings(AttackOptions())["gcg"] == GcgConfig()


def test_an_attack_needs_a_scenario_unless_sharded() -> None:
    with pytest.raises(ConfigError, match=r"give --scenario \(or --resume RUN\)") as raised:
        prepare_attack(AttackOptions())
    assert str(raised.value) == MISSING_SCENARIO
    with pytest.raises(ConfigError, match="Did you mean"):
        prepare_attack(AttackOptions(scenario="Encription"))


def test_a_shard_attacks_its_share_of_the_rules_named() -> None:
    targets = named_targets("Millionaires", None)
    seen: list[str] = []
    for index in (1, 2):
        prepared = prepare_attack(AttackOptions(scenario="Millionaires", shard=f"{index}/2"))
        assert prepared.shard == Shard(index=index, count=2) and prepared.targets == len(targets)
        seen += [config.behavior for config in prepared.configs]
        share = f"gcg shard {index}/2: {len(prepared.configs)} of the {len(targets)} rule(s)"
        assert prepared.notes[0].startswith(share)
        assert len(prepared.notes) == (2 if prepared.configs else 1)
    assert sorted(seen) == sorted(behavior for _, behavior in targets)


def test_auto_shards_read_the_environment_given() -> None:
    environ = {"JOB_COMPLETION_INDEX": "1"}
    prepared = prepare_attack(AttackOptions(shard="auto/2"), environ)
    assert prepared.shard == Shard(index=2, count=2)
    assert all(prepared.shard.holds(target_id(c.scenario, c.behavior)) for c in prepared.configs)


def test_resume_refuses_every_option_that_would_be_ignored() -> None:
    refuse_options_on_resume(AttackOptions(resume="run-1"))  # nothing else given: fine
    options = AttackOptions(resume="run-1", steps=9, no_reminders=True, seed=0, shard="1/2")
    with pytest.raises(ConfigError) as raised:
        refuse_options_on_resume(options)
    assert "drop --steps, --no-reminders, --seed, --shard (or start" in str(raised.value)


def test_a_shards_attacks_get_folders_of_their_own() -> None:
    out = Path("out")
    assert output_folder(out, "r1", is_shard=False) == out
    assert output_folder(out, "r1", is_shard=True) == out / "gcg-r1"
    assert output_folder(None, "r1", is_shard=True) is None


def _result(suffix: str = "ab") -> AttackResult:
    config = AttackConfig(scenario="Encryption", behavior="Encryption")
    state = GcgState(
        step=3, suffix_ids=(1,), suffix=suffix, loss=0.5, best=ScoredSuffix(loss=0.5, ids=(1,))
    )
    held = HeldOut(suffix=suffix, loss=1.25, reached=1, instances=2)
    return AttackResult(
        run_id="r1", config=config, state=state, initial=held, final=held, seconds_per_step=None
    )


def test_the_settings_line_says_what_full_would_run_unless_given() -> None:
    config = AttackConfig(scenario="Encryption", behavior="Encryption")
    quick, full = settings_line(config, False), settings_line(config, True)
    paper = PRESETS["paper"]
    assert f"(--full: {paper['num_steps']} steps" in quick and "--full" not in full
    assert full.startswith(
        f"gcg: {config.model} on Encryption/Encryption: {search_size(config.gcg)}"
    )


def test_result_lines_name_the_run_the_files_and_the_next_command() -> None:
    result = _result()
    lines = result_lines(result, [Path("a.txt"), Path("b.json")])
    assert lines[0] == "run r1: 3 steps (-)" and lines[1] == "suffix: 'ab'"
    assert lines[3] == "written: a.txt, b.json"
    assert lines[4] == "next: rulebench run scenarios --scenario Encryption --suffix r1"
    assert "`rulebench run scenarios --scenario Encryption --suffix r1`" in finished_line(result)


def test_progress_and_shard_lines() -> None:
    assert shown_suffix("x" * 40) == repr("x" * 40)
    assert shown_suffix("x" * 41) == repr("x" * 37 + "...")
    config = AttackConfig(scenario="Encryption", behavior="Encryption")
    assert target_line(1, 2, config, "reused").endswith("(completed earlier: not run again)")
    assert target_line(1, 2, config, "new") == "rule 1 of 2: Encryption/Encryption"
    shown = shard_json(Shard(index=1, count=2), 3, [ShardAttack("new", _result())])
    assert isinstance(shown, dict) and shown["shard"] == "1/2" and shown["targets"] == 3
    assert shown["attacks"][0]["how"] == "new" and shown["attacks"][0]["run_id"] == "r1"
