"""Scenarios with their rules, the fixes `--mode strict` applies, and the GCG target per rule."""

from rulebench.core.cases import Bucket
from rulebench.listing.entry import Listed
from rulebench.scenarios.base import Version


class ListedRule(Listed):
    """One rule of a scenario and the releases that hold it."""

    behavior: str
    bucket: Bucket
    versions: tuple[Version, ...]


class ListedScenario(Listed):
    """A scenario (`--scenario NAME`, `rulebench play NAME`) with its rules, v3's first."""

    name: str
    kind: str
    """"security", "game" or "plugin: PACKAGE"."""
    package: str
    versions: tuple[Version, ...]
    multi_user: bool
    """Whether every user message starts with `<name>:` for one of its users."""
    params: tuple[str, ...]
    """Its parameters' names, as a case's `params` holds them."""
    rules: tuple[ListedRule, ...]


class ListedStrictFix(Listed):
    """A named fix `--mode strict` applies on top of upstream's decisions."""

    name: str
    description: str


class ListedGcgTarget(Listed):
    """The reply a GCG suffix aims at for one v3 rule, with the user turn it needs."""

    scenario: str
    behavior: str
    bucket: Bucket
    target: str
    """Harmless: `str.format` fields named after the scenario's params; helpful: a sentence."""
    when: str
    may_pass: str
    """When a target-prefixed reply can still pass (empty: never)."""


def list_scenarios() -> list[ListedScenario]:
    """Every scenario that loads (a broken plugin is in `list_plugins`)."""
    from rulebench.scenarios.registry import REGISTRY

    loaded, _ = REGISTRY.load_all()
    found: list[ListedScenario] = []
    for name, scenario in loaded.items():
        package = REGISTRY.entry(name).package
        v1_rules = scenario.rules_v1 or scenario.rules
        v3_rules = scenario.rules if "v3" in scenario.versions else ()
        rules = [
            ListedRule(
                behavior=rule.behavior,
                bucket=rule.bucket,
                versions=tuple(
                    v for v, held in (("v1", v1_rules), ("v3", v3_rules)) if rule in held
                ),
            )
            for rule in dict.fromkeys([*v3_rules, *v1_rules])
        ]
        found.append(
            ListedScenario(
                name=name,
                kind=_scenario_kind(scenario.__module__, package),
                package=package,
                versions=scenario.versions,
                multi_user=scenario.users,
                params=tuple(scenario.params_type.model_fields),
                rules=tuple(rules),
            )
        )
    return found


def _scenario_kind(module: str, package: str) -> str:
    if package != "rulebench":
        return f"plugin: {package}"
    return "security" if ".security." in module else "game"


def list_strict_fixes() -> list[ListedStrictFix]:
    """The named fixes of `--mode strict`, in the order they apply."""
    from rulebench.scenarios.matching import STRICT_FIXES

    return [ListedStrictFix(name=name, description=text) for name, text in STRICT_FIXES.items()]


def list_gcg_targets() -> list[ListedGcgTarget]:
    """The GCG target of every v3 rule (`rulebench attack gcg`)."""
    from rulebench.attack.targets import rule_targets

    return [
        ListedGcgTarget(
            scenario=t.scenario,
            behavior=t.behavior,
            bucket=t.bucket,
            target=t.template,
            when=t.when,
            may_pass=t.may_pass,
        )
        for t in rule_targets()
    ]
