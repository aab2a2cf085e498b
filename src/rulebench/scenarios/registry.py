"""Every scenario by name, imported on first use, and every behavior (rule) with its bucket.

Which releases hold a scenario is data on its class (`Scenario.versions`), so the v3 list and
every count printed from it follow the classes, never a second hand-kept list.
"""

import difflib
import functools
import importlib
from typing import cast

from rulebench.core.errors import ConfigError
from rulebench.scenarios.base import RuleSpec, Scenario, Version

_SECURITY = "rulebench.scenarios.security"
_GAMES = "rulebench.scenarios.games"

SCENARIOS: dict[str, str] = {
    "Encryption": f"{_SECURITY}.encryption:SCENARIO",
    "Integrity": f"{_SECURITY}.integrity:SCENARIO",
    "AccessControl": f"{_SECURITY}.access_control:SCENARIO",
    "Commitment": f"{_SECURITY}.commitment:SCENARIO",
    "Confidentiality": f"{_SECURITY}.confidentiality:SCENARIO",
    "Authentication": f"{_SECURITY}.authentication:SCENARIO",
    "Millionaires": f"{_SECURITY}.millionaires:SCENARIO",
    "DiningCryptographers": f"{_SECURITY}.dining_cryptographers:SCENARIO",
    "ForbiddenWord": f"{_GAMES}.forbidden_word:SCENARIO",
    "RockPaperScissors": f"{_GAMES}.rock_paper_scissors:SCENARIO",
    "AnimalSounds": f"{_GAMES}.animal_sounds:SCENARIO",
    "Questions": f"{_GAMES}.questions:SCENARIO",
    "BinarySearch": f"{_GAMES}.binary_search:SCENARIO",
    "SimonSays": f"{_GAMES}.simon_says:SCENARIO",
    "Hodor": f"{_GAMES}.hodor:SCENARIO",
}
"""Name -> "module:attr" of the scenario's class, in upstream's order (errors list it so)."""


def scenario_class(name: str) -> type[Scenario]:
    """Look a scenario up, suggesting the closest name if it is unknown."""
    if name not in SCENARIOS:
        close = difflib.get_close_matches(name, SCENARIOS, n=1)
        hint = f" Did you mean '{close[0]}'?" if close else ""
        raise ConfigError(
            f"unknown scenario '{name}'.{hint} Known scenarios: {', '.join(SCENARIOS)}"
        )
    return _load(SCENARIOS[name])


@functools.cache  # behaviors() looks every class up, twice per test case (bucket_of)
def _load(target: str) -> type[Scenario]:
    module_name, _, attr = target.partition(":")
    return cast(type[Scenario], getattr(importlib.import_module(module_name), attr))


def scenario_classes() -> dict[str, type[Scenario]]:
    """Name -> class for every registered scenario, whatever its versions."""
    return {name: scenario_class(name) for name in SCENARIOS}


def scenario_names(version: Version = "v3") -> tuple[str, ...]:
    """The scenarios a RuLES release holds, in registry order."""
    return tuple(name for name, cls in scenario_classes().items() if version in cls.versions)


def scenario_count(version: Version = "v3") -> int:
    """How many scenarios a release holds, for every text that states the number."""
    return len(scenario_names(version))


def behaviors(version: Version = "v3") -> dict[str, tuple[str, RuleSpec]]:
    """Behavior name -> (scenario, rule) for every rule of the version's scenarios."""
    found = {}
    for name in scenario_names(version):
        scenario = scenario_class(name)
        rules = (scenario.rules_v1 or scenario.rules) if version == "v1" else scenario.rules
        found.update({rule.behavior: (name, rule) for rule in rules})
    return found


def __getattr__(name: str) -> tuple[str, ...]:
    """The constants older callers import, derived from `Scenario.versions` on first use.

    V3_SCENARIOS is `scenario_names("v3")`; V1_ONLY the scenarios in v1 and not in v3.
    """
    if name == "V3_SCENARIOS":
        return scenario_names("v3")
    if name == "V1_ONLY":
        v3 = scenario_names("v3")
        return tuple(found for found in scenario_names("v1") if found not in v3)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
