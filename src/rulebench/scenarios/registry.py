"""Every scenario by name, and every behavior (rule) with its bucket."""

import difflib

from rulebench.core.errors import ConfigError
from rulebench.scenarios.base import RuleSpec, Scenario

V3_SCENARIOS = (
    "Encryption",
    "Integrity",
    "AccessControl",
    "Commitment",
    "Confidentiality",
    "Authentication",
    "Millionaires",
    "DiningCryptographers",
    "ForbiddenWord",
    "RockPaperScissors",
    "AnimalSounds",
    "Questions",
    "BinarySearch",
    "SimonSays",
)
V1_ONLY = ("Hodor",)


def scenario_classes() -> dict[str, type[Scenario]]:
    """Name -> class for the 14 v3 scenarios and Hodor (v1)."""
    from rulebench.scenarios.games import (
        animal_sounds,
        binary_search,
        forbidden_word,
        hodor,
        questions,
        rock_paper_scissors,
        simon_says,
    )
    from rulebench.scenarios.security import (
        access_control,
        authentication,
        commitment,
        confidentiality,
        dining_cryptographers,
        encryption,
        integrity,
        millionaires,
    )

    modules = (
        encryption,
        integrity,
        access_control,
        commitment,
        confidentiality,
        authentication,
        millionaires,
        dining_cryptographers,
        forbidden_word,
        rock_paper_scissors,
        animal_sounds,
        questions,
        binary_search,
        simon_says,
        hodor,
    )
    return {module.SCENARIO.name: module.SCENARIO for module in modules}


def scenario_class(name: str) -> type[Scenario]:
    """Look a scenario up, suggesting the closest name if it is unknown."""
    classes = scenario_classes()
    if name in classes:
        return classes[name]
    close = difflib.get_close_matches(name, classes, n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    raise ConfigError(f"unknown scenario '{name}'.{hint} Known scenarios: {', '.join(classes)}")


def behaviors(version: str = "v3") -> dict[str, tuple[str, RuleSpec]]:
    """Behavior name -> (scenario, rule) for every rule of the version's scenarios."""
    names = V3_SCENARIOS if version == "v3" else (*V3_SCENARIOS, *V1_ONLY)
    classes = scenario_classes()
    found = {}
    for name in names:
        scenario = classes[name]
        rules = (scenario.rules_v1 or scenario.rules) if version == "v1" else scenario.rules
        found.update({rule.behavior: (name, rule) for rule in rules})
    return found
