"""The suites' numbers: computed once, in `rulebench.listing`, and consistent with each other."""

import ast
from pathlib import Path

from rulebench.listing.suites import (
    OFFICIAL_RELEASE_CASES,
    ListedGeneratedSuite,
    ListedOfficialSuite,
    list_suites,
)
from rulebench.scenarios.config import ScenarioConfig
from rulebench.scenarios.run_cases import GENERATED_SUITES
from rulebench.scenarios.suites.sizes import BUCKET_BEHAVIORS

CLI_LISTING = Path(__file__).parents[2] / "src" / "rulebench" / "cli" / "listing.py"


def generated() -> dict[str, ListedGeneratedSuite]:
    return {s.name: s for s in list_suites() if isinstance(s, ListedGeneratedSuite)}


def test_generated_suites_at_full_size_match_the_official_v3_release() -> None:
    # Two independent sources: the generators' per-behavior sizes and the release's counts.
    assert {name: s.cases for name, s in generated().items()} == OFFICIAL_RELEASE_CASES["v3"]
    assert list(generated()) == list(GENERATED_SUITES)


def test_a_generated_suite_adds_up_over_buckets_and_behaviors() -> None:
    for suite in generated().values():
        assert sum(suite.buckets.values()) == sum(suite.per_behavior.values()) == suite.cases
        for bucket, members in BUCKET_BEHAVIORS.items():
            assert suite.buckets[bucket] == sum(suite.per_behavior[m] for m in members)
    strategies = generated()["redteam"].strategies
    assert strategies is not None
    assert {b: sum(by.values()) for b, by in strategies.items()} == generated()["redteam"].buckets
    assert generated()["basic"].strategies is None


def test_the_default_size_is_the_configs() -> None:
    per_group = ScenarioConfig().per_group
    behaviors = sum(len(members) for members in BUCKET_BEHAVIORS.values())
    for suite in generated().values():
        assert suite.default_per_group == per_group
        assert suite.default_cases == (per_group or 0) * behaviors


def test_official_suites_follow_the_release_table_and_run_whole() -> None:
    official = [s for s in list_suites() if isinstance(s, ListedOfficialSuite)]
    assert [(s.source, s.name, s.cases) for s in official] == [
        (f"official {version} files", name, cases)
        for version, suites in OFFICIAL_RELEASE_CASES.items()
        for name, cases in suites.items()
    ]
    assert {s.default_per_group for s in official} == {"all"}


def test_the_cli_listing_writes_no_number_of_its_own() -> None:
    """Every count `rulebench list` prints comes from the library (0 and 1 index, not count)."""
    tree = ast.parse(CLI_LISTING.read_text(encoding="utf-8"))
    numbers = [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, int)
        and not isinstance(node.value, bool)
        and node.value not in (0, 1)
    ]
    assert numbers == []
