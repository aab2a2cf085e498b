"""`rulebench.listing.tables`: each section as plain-text rows, and the listing's JSON."""

import pytest

from rulebench.listing.plugins import ListedPlugin, PluginProblem
from rulebench.listing.scenarios import ListedRule, ListedScenario, list_scenarios
from rulebench.listing.sections import SECTIONS, Section, list_section
from rulebench.listing.suites import ListedGeneratedSuite
from rulebench.listing.tables import NAME_COLUMNS, entry_json, listing_json, section_table


@pytest.mark.parametrize("section", SECTIONS)
def test_every_row_fills_every_column(section: Section) -> None:
    entries = list_section(section)
    table = section_table(section, entries)
    assert table.title and table.columns
    assert all(len(row) == len(table.columns) for row in table.rows)
    assert set(table.name_columns) <= set(NAME_COLUMNS) & set(table.columns)


def test_a_scenario_row_lists_its_rules_one_a_line() -> None:
    rules = (
        ListedRule(behavior="a", bucket="harmless", versions=("v3",)),
        ListedRule(behavior="b", bucket="helpful", versions=("v1", "v3")),
    )
    scenario = ListedScenario(
        name="Demo",
        kind="game",
        package="rulebench",
        versions=("v1", "v3"),
        multi_user=False,
        params=(),
        rules=rules,
    )
    [row] = section_table("scenarios", [scenario]).rows
    assert row == ("Demo", "game", "v1/v3", "a (harmless, v3 only)\nb (helpful)")
    assert section_table("scenarios", [scenario]).name_columns == ("scenario",)


def test_a_generated_suite_row_gives_its_split_and_default_size() -> None:
    suite = ListedGeneratedSuite(
        name="benign",
        cases=30,
        buckets={"harmless": 20, "helpful": 10},
        default_per_group=5,
        default_cases=12,
        per_behavior={"a": 30},
    )
    [row] = section_table("suites", [suite]).rows
    assert row == ("benign", "generated", "30 (harmless 20, helpful 10)", "5 per behavior (12)")


def test_a_plugin_that_fails_says_why_in_its_use_column() -> None:
    broken = ListedPlugin(
        kind="scenario", name="x", package="pkg", target="m:X", use="--scenario x", error="boom"
    )
    problem = PluginProblem(kind="model provider", error="clash")
    rows = section_table("plugins", [broken, problem]).rows
    assert rows == (
        ("scenario", "x", "pkg", "error: boom"),
        ("model provider", "?", "?", "error: clash"),
    )


def test_the_json_leaves_absent_fields_out_and_keeps_the_old_suite_key() -> None:
    suite = ListedGeneratedSuite(
        name="benign",
        cases=3,
        buckets={"harmless": 3},
        default_per_group="all",
        default_cases=None,
        per_behavior={"a": 3},
    )
    found = entry_json(suite)
    assert "default_cases" not in found
    keys = list(found)
    assert keys[keys.index("default_per_group") + 1] == "default_per_behavior"
    assert found["default_per_behavior"] == "all"
    scenarios = list_scenarios()
    assert listing_json({"scenarios": scenarios}) == {
        "scenarios": [entry_json(s) for s in scenarios]
    }
