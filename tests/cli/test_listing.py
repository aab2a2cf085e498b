"""`rulebench list`: the names every other command takes, read from the registries themselves."""

import json
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from rulebench.cli import listing
from rulebench.engine.catalog import TASKS
from rulebench.inferential.registry import TASKS as INFERENTIAL_TASKS
from rulebench.scenarios.matching import STRICT_FIXES
from rulebench.scenarios.registry import behaviors, scenario_names

runner = CliRunner()


def list_app() -> typer.Typer:
    app = typer.Typer()
    listing.register(app)

    @app.callback()
    def main() -> None:
        """A group, so that `list` stays a subcommand as in the real app."""

    return app


def listed(*args: str) -> dict[str, list[dict[str, Any]]]:
    result = runner.invoke(list_app(), ["list", *args, "--json"])
    assert result.exit_code == 0, result.output
    found: dict[str, list[dict[str, Any]]] = json.loads(result.stdout)
    return found


def test_json_lists_every_section_from_the_registries() -> None:
    found = listed()
    assert list(found) == [
        "tasks",
        "inferential",
        "scenarios",
        "suites",
        "strict-fixes",
        "gcg-targets",
        "plugins",
    ]
    assert [t["name"] for t in found["tasks"]] == list(TASKS)
    assert found["tasks"][2]["command"] == "rulebench run scenarios"
    assert [f["name"] for f in found["strict-fixes"]] == list(STRICT_FIXES)


def test_inferential_tasks_come_from_their_definitions() -> None:
    tasks = {t["name"]: t for t in listed("inferential")["inferential"]}
    assert list(tasks) == list(INFERENTIAL_TASKS)
    assert tasks["kinship"]["source"] == "generated"
    assert tasks["clutrr"]["source"].startswith("official")
    assert tasks["law"]["rules_few_all"] == [4, 20]
    assert tasks["theoremQA"]["paper_shots"] == 1
    assert (
        "stepson" in tasks["clutrr-cf"]["answers"] and "stepson" not in tasks["clutrr"]["answers"]
    )
    assert tasks["ulogic"]["robust_fixes"]


def test_scenarios_carry_their_rules_and_versions() -> None:
    scenarios = {s["name"]: s for s in listed("scenarios")["scenarios"]}
    assert set(scenarios) == {*scenario_names("v3"), "Hodor"} == set(scenario_names("v1"))
    assert scenarios["Hodor"]["versions"] == ["v1"] and scenarios["Encryption"]["versions"] == [
        "v1",
        "v3",
    ]
    v3_rules = {
        str(rule["behavior"]): rule["bucket"]
        for s in scenarios.values()
        for rule in s["rules"]
        if "v3" in rule["versions"]
    }
    assert v3_rules == {name: rule.bucket for name, (_, rule) in behaviors("v3").items()}
    assert len(v3_rules) == 19
    assert scenarios["AccessControl"]["multi_user"] is True


def test_generated_suites_have_the_official_v3_sizes() -> None:
    suites = listed("suites")["suites"]
    generated = {s["name"]: s for s in suites if s["source"] == "generated"}
    assert {name: s["cases"] for name, s in generated.items()} == {
        "benign": 475,
        "basic": 475,
        "redteam": 745,
    }
    assert generated["redteam"]["buckets"] == {"harmless": 355, "helpful": 390}
    assert sum(generated["redteam"]["strategies"]["harmless"].values()) == 355


def test_suites_give_their_default_size_per_group_and_under_the_old_key() -> None:
    from rulebench.scenarios.config import ScenarioConfig

    suites = listed("suites")["suites"]
    sizes = {(s["name"], s["source"]): s["default_per_group"] for s in suites}
    assert sizes["basic", "generated"] == ScenarioConfig().per_group
    assert sizes["basic", "official v3 files"] == sizes["manual", "official v1 files"] == "all"
    for suite in suites:  # the old key stays for one release
        assert suite["default_per_behavior"] == suite["default_per_group"]


def test_tables_show_each_section() -> None:
    result = runner.invoke(list_app(), ["list"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for text in ("Tasks", "Scenarios", "Suites", "Strict fixes", "Hodor (helpful, v1 only)"):
        assert text in result.output
    assert "Authentication_withholdsecret (harmless)" in result.output


@pytest.mark.parametrize("section", ["tasks", "scenarios", "suites", "strict-fixes", "gcg-targets"])
def test_one_section(section: str) -> None:
    assert list(listed(section)) == [section]


def test_an_unknown_section_is_a_usage_error() -> None:
    result = runner.invoke(list_app(), ["list", "models"])
    assert result.exit_code == 2
