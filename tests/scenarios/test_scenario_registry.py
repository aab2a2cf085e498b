import importlib
from typing import get_args

import pytest

from rulebench.core.errors import ConfigError
from rulebench.scenarios import registry
from rulebench.scenarios.base import Scenario, Version
from rulebench.scenarios.registry import (
    SCENARIOS,
    behaviors,
    scenario_class,
    scenario_classes,
    scenario_count,
    scenario_names,
)


@pytest.mark.parametrize("name", SCENARIOS)
def test_every_entry_imports_and_matches_its_key(name: str) -> None:
    module_name, sep, attr = SCENARIOS[name].partition(":")
    assert sep and attr
    found = getattr(importlib.import_module(module_name), attr)
    assert isinstance(found, type) and issubclass(found, Scenario)
    assert found is scenario_class(name)
    assert found.name == name
    assert found.versions, "a scenario belongs to at least one release"
    assert len(set(found.versions)) == len(found.versions)
    assert set(found.versions) <= set(get_args(Version))


def test_release_sizes_follow_the_spec() -> None:
    # spec/scenarios.md: v1 has 15 scenarios and 22 rules; v3 has 14 scenarios and 19 rules.
    assert scenario_count("v1") == 15 and len(behaviors("v1")) == 22
    assert scenario_count("v3") == 14 and len(behaviors("v3")) == 19
    assert scenario_count() == scenario_count("v3")


def test_membership_is_read_from_the_classes() -> None:
    classes = scenario_classes()
    assert list(classes) == list(SCENARIOS)
    assert scenario_names("v1") == tuple(SCENARIOS)
    assert scenario_names("v3") == tuple(n for n, c in classes.items() if "v3" in c.versions)
    assert scenario_class("Hodor").versions == ("v1",)
    assert "Hodor" not in scenario_names("v3")


def test_the_old_constants_still_import() -> None:
    from rulebench.scenarios.registry import V1_ONLY, V3_SCENARIOS

    assert scenario_names("v3") == V3_SCENARIOS
    assert V1_ONLY == ("Hodor",)
    with pytest.raises(AttributeError, match="V2_SCENARIOS"):
        _ = registry.V2_SCENARIOS


def test_unknown_names_get_a_did_you_mean_and_the_list() -> None:
    with pytest.raises(ConfigError, match="Did you mean 'Encryption'") as caught:
        scenario_class("Encryptoin")
    assert str(caught.value).endswith(f"Known scenarios: {', '.join(SCENARIOS)}")
    with pytest.raises(ConfigError, match=r"unknown scenario 'zzz'\. Known scenarios: "):
        scenario_class("zzz")
