"""Scenario filters and protocol options that once did nothing: each is now run or refused.

`--scenario Hodor` on v3 suites ran 0 items; `--system-message` was dropped in system placement
and under `--preset published-v3`. Through the real command in a subprocess, as a user meets them.
"""

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from pydantic import JsonValue
from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.core.errors import ConfigError
from rulebench.engine.store.database import Store
from rulebench.scenarios.config import ScenarioConfig
from rulebench.scenarios.protocol import PUBLISHED_V3_MAX_TOKENS, Protocol, stored_label
from rulebench.scenarios.run_cases import load_cases
from rulebench.scenarios.task import ScenarioTask

from tests.command import assert_one_line_error, rulebench

ECHO = ("-m", "scripted/echo")


def runs_in(store: Path) -> int:
    if not store.exists():
        return 0
    with Store(store, readonly=True) as db:
        return len(db.list_runs())


def write_file(path: Path, lines: Sequence[Mapping[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


ENCRYPTION_CASE = {"params": {"secret": "opal"}, "messages": [{"role": "user", "content": "hi"}]}
HODOR_CASE = {"params": {}, "messages": [{"role": "user", "content": "Say hello"}]}


@pytest.mark.subprocess
def test_hodor_on_v3_suites_is_an_error_saying_where_hodor_is(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    result = rulebench("run", "scenarios", "--scenario", "Hodor", *ECHO, "--store", str(store))
    assert_one_line_error(
        result, "--scenario Hodor selects no test case", "--suite basic", "v1-only", "Hodor.jsonl"
    )
    assert "--version v1" in result.stderr and runs_in(store) == 0


@pytest.mark.subprocess
def test_hodor_runs_from_v1_files(tmp_path: Path) -> None:
    manual = write_file(tmp_path / "manual" / "Hodor.jsonl", [HODOR_CASE])
    store = tmp_path / "s.sqlite"
    args = ("-s", str(manual), "--version", "v1", "--scenario", "Hodor", "--json")
    result = rulebench("run", "scenarios", *args, *ECHO, "--store", str(store))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["summary"][-1]["items"] == 1


@pytest.mark.subprocess
def test_a_filter_matching_nothing_in_a_file_names_the_filter_and_what_is_there(
    tmp_path: Path,
) -> None:
    file = write_file(tmp_path / "mine" / "Encryption.jsonl", [ENCRYPTION_CASE])
    store = tmp_path / "s.sqlite"
    result = rulebench(
        "run", "scenarios", "-s", str(file), "--scenario", "Integrity", *ECHO, "--store", str(store)
    )
    assert_one_line_error(
        result, "--scenario Integrity selects no test case", str(file), "there: Encryption"
    )
    assert runs_in(store) == 0


def test_every_named_scenario_must_select_a_case(tmp_path: Path) -> None:
    # One filter matching and one not used to run the first and drop the second unsaid.
    file = write_file(tmp_path / "mine" / "Encryption.jsonl", [ENCRYPTION_CASE])
    config = ScenarioConfig(suites=(str(file),), scenarios=("Encryption", "Integrity"))
    with pytest.raises(ConfigError, match=r"^--scenario Integrity selects no test case"):
        load_cases(config)
    with pytest.raises(ConfigError, match="Hodor is a v1-only scenario"):
        ScenarioTask(scenarios=["Hodor"], per_group=1).items()


def test_per_group_sizes_generated_suites_and_files_run_whole(tmp_path: Path) -> None:
    file = write_file(
        tmp_path / "mine" / "Encryption.jsonl",
        [{**ENCRYPTION_CASE, "id": str(i)} for i in range(3)],
    )
    config = ScenarioConfig(suites=(str(file), "basic"), per_group=2)
    cases = load_cases(config)
    assert sum("source" in case.metadata for case in cases) == 3  # the file's, all of them
    generated = Counter(case.behavior for case in cases if "source" not in case.metadata)
    assert set(generated.values()) == {2}
    assert ScenarioConfig().per_group == 5


def test_a_stored_run_under_the_old_field_name_caps_files_as_it_ran(tmp_path: Path) -> None:
    file = write_file(
        tmp_path / "mine" / "Encryption.jsonl",
        [{**ENCRYPTION_CASE, "id": str(i)} for i in range(3)],
    )
    with pytest.warns(FutureWarning, match="'per_behavior' is now 'per_group'"):
        config = ScenarioConfig.model_validate({"suites": [str(file)], "per_behavior": 2})
    assert (config.per_group, config.cap_files) == (2, True)
    assert len(load_cases(config)) == 2


def test_a_named_system_message_needs_user_placement() -> None:
    with pytest.raises(ConfigError, match="system message 'pirate' needs user placement"):
        Protocol(placement="system", system_message="pirate")
    with pytest.raises(ConfigError, match="needs user placement"):
        ScenarioTask(protocol={"placement": "system", "system_message": "pirate"})
    assert Protocol(system_message="pirate").label() == (
        "user, reminders, compat, system message pirate"
    )


def test_a_run_stored_before_the_check_still_gets_a_label() -> None:
    stored: JsonValue = {"placement": "system", "reminders": False, "system_message": "pirate"}
    assert stored_label(stored) == "system, no reminders, compat"
    assert stored_label(None) == "user, reminders, compat"


@pytest.mark.subprocess
@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (
            ("--placement", "system", "--system-message", "pirate"),
            "system message 'pirate' needs user placement",
        ),
        (
            ("--preset", "published-v3", "--system-message", "pirate"),
            "--preset published-v3 fixes the protocol",
        ),
        (("--preset", "published-v3", "--placement", "user"), "drop --placement user"),
    ],
)
def test_protocol_options_that_would_be_ignored_are_refused(
    tmp_path: Path, options: tuple[str, ...], expected: str
) -> None:
    store = tmp_path / "s.sqlite"
    result = rulebench("run", "scenarios", *options, *ECHO, "--store", str(store))
    assert_one_line_error(result, expected)
    assert runs_in(store) == 0


@pytest.mark.subprocess
def test_the_preset_with_options_that_agree_runs(tmp_path: Path) -> None:
    file = write_file(tmp_path / "mine" / "Encryption.jsonl", [ENCRYPTION_CASE])
    options = ("--preset", "published-v3", "--placement", "system", "--no-reminders")
    result = rulebench(
        "run", "scenarios", "-s", str(file), *options, *ECHO, "--store", str(tmp_path / "s")
    )
    assert result.returncode == 0, result.stderr
    assert "protocol: system, no reminders, compat" in result.stderr


def test_the_preset_carries_upstreams_reply_limit_and_max_tokens_replaces_it(
    tmp_path: Path,
) -> None:
    store = tmp_path / "s.sqlite"
    file = write_file(tmp_path / "mine" / "Encryption.jsonl", [ENCRYPTION_CASE])
    base = ["run", "scenarios", "-s", str(file), "--preset", "published-v3", *ECHO]
    for extra, limit in (([], PUBLISHED_V3_MAX_TOKENS), (["--max-tokens", "40"], 40)):
        result = CliRunner().invoke(app, [*base, *extra, "--store", str(store), "--json"])
        assert result.exit_code == 0, result.output
        with Store(store, readonly=True) as db:
            [run] = db.list_runs(1)
            stored = db.get_run(run.id).config["generate"]
            played = {r.outcome.details["max_tokens"] for r in db.iter_results(run.id) if r.outcome}
        assert isinstance(stored, dict) and stored["max_tokens"] == limit
        assert played == {limit}  # a file's cases too, which play at 512 without the preset
