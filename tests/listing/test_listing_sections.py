"""`rulebench.listing`: typed entries read from the registries, one lister per section."""

import pytest

from rulebench.engine.catalog import TASKS, config_type
from rulebench.inferential.registry import TASKS as INFERENTIAL_TASKS
from rulebench.listing.entry import Listed
from rulebench.listing.models import list_models
from rulebench.listing.scenarios import ListedScenario, list_gcg_targets, list_scenarios
from rulebench.listing.sections import SECTIONS, Section, list_section
from rulebench.listing.tasks import (
    BrokenInferentialTask,
    ListedInferentialTask,
    list_inferential,
    list_tasks,
)
from rulebench.models.registry import PROVIDERS
from rulebench.scenarios.registry import behaviors


@pytest.mark.parametrize("section", SECTIONS)
def test_every_section_lists_frozen_entries(section: Section) -> None:
    entries = list_section(section)
    assert all(isinstance(entry, Listed) for entry in entries)
    for entry in entries[:1]:
        with pytest.raises(ValueError, match="frozen"):
            setattr(entry, next(iter(type(entry).model_fields)), "changed")


def test_tasks_carry_their_command_and_default_reply_limit() -> None:
    tasks = {t.name: t for t in list_tasks()}
    assert list(tasks) == list(TASKS) and list_section("tasks") == list_tasks()
    assert tasks["irft-test"].command == "rulebench train compare"
    assert tasks["smoke"].command == "rulebench run smoke"
    expected = config_type("scenarios").model_construct().generation_defaults().max_tokens
    assert tasks["scenarios"].max_tokens == expected


def test_inferential_tasks_are_their_definitions() -> None:
    found = list_inferential()
    assert [t.name for t in found] == list(INFERENTIAL_TASKS.entries())
    assert not any(isinstance(t, BrokenInferentialTask) for t in found)
    kinship = next(t for t in found if t.name == "kinship")
    assert isinstance(kinship, ListedInferentialTask)
    assert kinship.source == "generated" and kinship.package == "rulebench"


def test_scenario_rules_name_their_releases() -> None:
    scenarios = {s.name: s for s in list_scenarios()}
    hodor = scenarios["Hodor"]
    assert isinstance(hodor, ListedScenario) and hodor.versions == ("v1",)
    assert [r.versions for r in hodor.rules] == [("v1",)]
    v3 = {r.behavior for s in scenarios.values() for r in s.rules if "v3" in r.versions}
    assert v3 == set(behaviors("v3"))


def test_gcg_targets_cover_every_v3_rule_in_order() -> None:
    assert [t.behavior for t in list_gcg_targets()] == list(behaviors("v3"))


def test_models_are_the_built_in_providers_with_their_install_line() -> None:
    providers = {p.name: p for p in list_models()}
    assert list(providers) == list(PROVIDERS)
    assert providers["hf"].install == "pip install 'rulebench[hf]'"
    assert providers["openai"].install == "included"
    assert providers["scripted"].example == PROVIDERS["scripted"].example
