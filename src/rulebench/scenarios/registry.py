"""Every scenario by name, imported on first use, and every behavior (rule) with its bucket.

Which releases hold a scenario is data on its class (`Scenario.versions`), so the v3 list and
every count printed from it follow the classes, never a second hand-kept list. Scenarios from
other packages register a "module:attr" string in the `rulebench.scenarios` entry-point group;
they run from case files (`--suite FILE`) and in play, never in the generated suites.
"""

import logging

from rulebench.plugins.lazy_registry import LazyRegistry
from rulebench.scenarios.base import RuleSpec, Scenario, Version

logger = logging.getLogger(__name__)
_WARNED: set[str] = set()
"""Plugin failures already logged (one warning per process, not one per lookup)."""

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
SCENARIOS_GROUP = "rulebench.scenarios"


def _check(name: str, found: object) -> type[Scenario]:
    if not (isinstance(found, type) and issubclass(found, Scenario)):
        raise TypeError(f"it is {found!r}, not a Scenario subclass")
    if found.name != name:
        raise TypeError(f"its class is named '{found.name}', not '{name}'")
    return found


REGISTRY: LazyRegistry[type[Scenario]] = LazyRegistry(
    "scenario", SCENARIOS, SCENARIOS_GROUP, _check
)
"""The built-in scenarios, then those of installed plugins (loaded once each)."""


def scenario_class(name: str) -> type[Scenario]:
    """Look a scenario up, suggesting the closest name if it is unknown."""
    return REGISTRY.load(name)


def scenario_classes() -> dict[str, type[Scenario]]:
    """Name -> class for every registered scenario (plugins included), whatever its versions.

    A plugin that fails to load is left out with a warning, so one broken package does not
    stop runs of the others.
    """
    loaded, failed = REGISTRY.load_all()
    for line in failed:
        if line not in _WARNED:
            _WARNED.add(line)
            logger.warning("%s", line)
    return loaded


def scenario_names(version: Version = "v3") -> tuple[str, ...]:
    """The scenarios a RuLES release holds, in registry order."""
    return tuple(name for name, cls in scenario_classes().items() if version in cls.versions)


def scenario_count(version: Version = "v3") -> int:
    """How many scenarios a release holds, for every text that states the number."""
    return sum(1 for name in scenario_names(version) if name in SCENARIOS)


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
