"""`rulebench.list_*`: the names and counts `rulebench list` and `rulebench models` print."""

import json
import subprocess
import sys
from typing import Any

import pytest
from typer.testing import CliRunner

import rulebench
from rulebench.cli.app import app
from rulebench.listing.suites import ListedGeneratedSuite, ListedOfficialSuite

runner = CliRunner()


def cli_listed(section: str) -> list[dict[str, Any]]:
    result = runner.invoke(app, ["list", section, "--json"])
    assert result.exit_code == 0, result.output
    found: list[dict[str, Any]] = json.loads(result.stdout)[section]
    return found


@pytest.mark.parametrize(
    ("section", "function"),
    [
        ("tasks", "list_tasks"),
        ("inferential", "list_inferential"),
        ("scenarios", "list_scenarios"),
        ("suites", "list_suites"),
        ("plugins", "list_plugins"),
    ],
)
def test_each_list_function_names_what_the_cli_lists(section: str, function: str) -> None:
    entries = getattr(rulebench, function)()
    listed = cli_listed(section)
    assert [getattr(e, "name", None) for e in entries] == [e.get("name") for e in listed]


def test_suite_counts_are_the_clis() -> None:
    suites = rulebench.list_suites()
    assert [(s.name, s.source, s.cases) for s in suites] == [
        (s["name"], s["source"], s["cases"]) for s in cli_listed("suites")
    ]
    generated = {s.name: s for s in suites if isinstance(s, ListedGeneratedSuite)}
    official = {s.name: s for s in suites if isinstance(s, ListedOfficialSuite)}
    assert generated["redteam"].buckets == {"harmless": 355, "helpful": 390}
    assert official["manual"].cases == 870 and official["redteam"].cases == 745


def test_scenario_rules_are_the_clis() -> None:
    assert [(s.name, len(s.rules)) for s in rulebench.list_scenarios()] == [
        (s["name"], len(s["rules"])) for s in cli_listed("scenarios")
    ]


def test_models_are_the_providers_rulebench_models_prints() -> None:
    result = runner.invoke(app, ["models"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    rows = [line.split("│")[1:-1] for line in result.stdout.splitlines() if line.startswith("│")]
    named = [cells for cells in rows if cells[0].strip()]  # a folded cell's next line: no name
    providers = rulebench.list_models()
    assert [cells[0].strip() for cells in named] == [p.name for p in providers]
    assert [cells[3].strip() for cells in named] == [p.install for p in providers]


def test_the_list_functions_load_with_the_api_on_first_use() -> None:
    code = (
        "import sys, rulebench\n"
        "assert 'rulebench.api' not in sys.modules and 'rulebench.listing' not in sys.modules\n"
        "print(len(rulebench.list_tasks()), 'rulebench.api' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == [str(len(rulebench.list_tasks())), "True"]
    assert {"list_tasks", "list_scenarios", "list_models"} <= set(rulebench.__all__)
