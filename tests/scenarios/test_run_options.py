"""`prepare_scenarios`: the options of `run scenarios` turned into a config and its notes.

The command line and the Python API both call it, so what it decides (a preset's limit and
conflicts, the moved clone, replay notes, the one "cases: ...; protocol: ..." line) is tested
here without a command line.
"""

import json
from pathlib import Path
from typing import Any

import pytest

from rulebench.core.errors import ConfigError
from rulebench.scenarios.protocol import PUBLISHED_V3_MAX_TOKENS
from rulebench.scenarios.run_options import (
    NOT_COMPARABLE,
    REPLACED,
    ScenarioOptions,
    prepare_scenarios,
)
from rulebench.scenarios.sizes import FULL_MAX_TOKENS, QUICK_MAX_TOKENS
from rulebench.scenarios.suites.generated import generate_suite
from rulebench.scenarios.suites.official_writer import write_suite

from tests.scenarios.upstream_fixture import DATA_UNDER, build_clone, head_commit


def _saved_file(folder: Path, played: dict[str, object]) -> Path:
    """The basic suite's Encryption cases as a file, each with the `played` record given."""
    cases = [case for case in generate_suite("basic", 0) if case.scenario == "Encryption"]
    [path] = write_suite(cases, folder)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text("".join(json.dumps({**row, "played": played}) + "\n" for row in rows))
    return path


def test_the_defaults_are_the_configs_and_name_full() -> None:
    prepared = prepare_scenarios(ScenarioOptions())
    assert prepared.config.suites == ("basic",) and prepared.config.per_group == 5
    assert prepared.max_tokens is None and prepared.warnings == ()
    assert prepared.run_line == (
        "cases: 5 per behavior; protocol: user, reminders, compat; prompts: rulebench "
        f"(--full for the official sizes and max_tokens {FULL_MAX_TOKENS})"
    )


def test_the_published_preset_fixes_the_protocol_and_carries_upstreams_limit() -> None:
    prepared = prepare_scenarios(ScenarioOptions(preset="published-v3", full=True))
    protocol = prepared.config.protocol
    assert (protocol.placement, protocol.reminders, protocol.system_message) == (
        "system",
        False,
        None,
    )
    assert prepared.config.per_group is None
    assert prepared.max_tokens == PUBLISHED_V3_MAX_TOKENS
    assert prepared.warnings == (NOT_COMPARABLE,)  # our own wording: not the published text
    assert (
        prepared.run_line
        == "cases: all; protocol: system, no reminders, compat; prompts: rulebench"
    )


def test_a_limit_the_run_names_wins_over_the_presets() -> None:
    prepared = prepare_scenarios(ScenarioOptions(preset="published-v3"), max_tokens=40)
    assert prepared.max_tokens == 40
    assert prepared.run_line.endswith("(--full for the official sizes)")  # no limit to name


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (ScenarioOptions(full=True, per_group=3), "--full runs the official sizes"),
        (
            ScenarioOptions(preset="published-v3", placement="user", system_message="pirate"),
            "drop --placement user and --system-message pirate",
        ),
        (ScenarioOptions(suffix_on="first"), "--suffix-on first needs a suffix"),
    ],
)
def test_options_that_conflict_are_one_error(options: ScenarioOptions, says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        prepare_scenarios(options)


def test_suites_of_different_sizes_name_each_limit() -> None:
    prepared = prepare_scenarios(ScenarioOptions(suites=("basic", "redteam"), per_group=30))
    assert prepared.config.suite_sizes() == ("official", "quick")  # basic holds 25 per behavior
    assert prepared.run_line.startswith(
        f"cases: 30 per behavior; max_tokens {FULL_MAX_TOKENS} for basic, "
        f"{QUICK_MAX_TOKENS} for redteam; protocol: "
    )


def test_saved_cases_replay_as_recorded_and_an_option_given_is_named(tmp_path: Path) -> None:
    path = _saved_file(tmp_path, {"max_tokens": 300, "protocol": {"mode": "strict"}})
    kept = prepare_scenarios(ScenarioOptions(suites=(str(path),)))
    assert kept.warnings == ()
    assert kept.run_line == (
        "cases: all; protocol: saved cases as recorded (user, reminders, strict, prompts: "
        "rulebench)"
    )
    replaced = prepare_scenarios(ScenarioOptions(suites=(str(path),), mode="compat"))
    assert replaced.warnings == (REPLACED + "mode compat (recorded: strict)",)
    limited = prepare_scenarios(ScenarioOptions(suites=(str(path), "basic")), max_tokens=64)
    assert limited.warnings == (REPLACED + "max_tokens 64 (recorded: 300)",)
    assert ", others user, reminders, compat; prompts: rulebench" in limited.run_line


def test_upstream_alone_names_where_a_saved_games_clone_now_is(tmp_path: Path) -> None:
    folder = build_clone(tmp_path / "clone")
    prepared = prepare_scenarios(ScenarioOptions(upstream=folder))
    assert prepared.config.protocol.prompts == "rulebench"  # the given wording is untouched
    assert prepared.config.upstream is not None
    assert prepared.config.upstream.revision == f"commit {head_commit(tmp_path / 'clone')}"


def test_upstream_prompts_read_the_clone_holding_the_suites_data(tmp_path: Path) -> None:
    build_clone(tmp_path / "clone")
    data = str(tmp_path / "clone" / DATA_UNDER["llm_rules"])
    options = ScenarioOptions(suites=(data,), preset="published-v3", prompts="upstream")
    prepared = prepare_scenarios(options)
    assert prepared.warnings == ()  # upstream's own text: comparable
    commit = head_commit(tmp_path / "clone")[:8]
    assert prepared.run_line.endswith(f"prompts: upstream (clone at commit {commit})")


def test_a_field_the_config_refuses_is_named_as_the_caller_spells_it() -> None:
    unchecked: dict[str, Any] = {"suites": (1,)}  # a value only the config refuses
    options = ScenarioOptions.model_construct(**unchecked)
    with pytest.raises(ConfigError, match=r"^--suites: "):
        prepare_scenarios(options, label=lambda field: f"--{field}")
