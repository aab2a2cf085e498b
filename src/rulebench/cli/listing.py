"""`rulebench list`: what can be run, by the names the other commands take.

Tasks (`rulebench run NAME`), scenarios with their rules (`--scenario`, `play`), suites
(`--suite`), strict-mode fixes (`--mode strict`) and GCG targets (`attack gcg`), read from the
registries themselves, so the list never drifts from what the commands accept.
"""

import json
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from pydantic import JsonValue

from rulebench.cli import options as opt
from rulebench.cli.console import out
from rulebench.core.errors import RulebenchError

if TYPE_CHECKING:
    from rich.table import Table

Section = Literal[
    "tasks", "inferential", "scenarios", "suites", "strict-fixes", "gcg-targets", "plugins"
]
SECTIONS: tuple[Section, ...] = (
    "tasks",
    "inferential",
    "scenarios",
    "suites",
    "strict-fixes",
    "gcg-targets",
    "plugins",
)

OFFICIAL_SUITES: dict[str, dict[str, int]] = {
    "v3": {"benign": 475, "basic": 475, "redteam": 745},
    "v1": {"manual": 870, "systematic": 862, "justask": 440},
}
"""Case counts of the official releases (spec), for files given to `--suite` (not bundled)."""


def list_names(
    what: Annotated[
        Section | None,
        typer.Argument(
            metavar="SECTION",
            # Named in the help, which folds between words (the type column folds mid-word).
            show_choices=False,
            help=f"Only this section (default: all): {', '.join(SECTIONS)}.",
            show_default=False,
        ),
    ] = None,
    as_json: opt.JsonOption = False,
) -> None:
    """List tasks, inferential datasets, scenarios, suites, fixes, GCG targets, plugins."""
    builders = {
        "tasks": task_entries,
        "inferential": inferential_entries,
        "scenarios": scenario_entries,
        "suites": suite_entries,
        "strict-fixes": strict_fix_entries,
        "gcg-targets": gcg_target_entries,
        "plugins": plugin_entries,
    }
    chosen = [what] if what else list(SECTIONS)
    payload = {section: builders[section]() for section in chosen}
    if as_json:
        out.print_json(json.dumps(payload), ensure_ascii=True)
        return
    for section in chosen:
        out.print(_render(section, payload[section]))


def register(app: typer.Typer) -> None:
    """Add the command to the main app as `rulebench list`."""
    app.command("list")(list_names)


def task_entries() -> list[JsonValue]:
    """Every registered task and the command that runs it."""
    from rulebench.engine.catalog import TASKS, config_type

    return [
        {
            "name": name,
            "description": entry.description,
            "command": entry.command or f"rulebench run {name}",
            # Defaults of a config left at its defaults (the judge's runs are not checked).
            "max_tokens": config_type(name).model_construct().generation_defaults().max_tokens,
        }
        for name, entry in TASKS.items()
    ]


def inferential_entries() -> list[JsonValue]:
    """Every inferential task (`run inferential -t NAME`) as its definition declares it.

    A plugin's task names its package; one that fails to load is listed with its error.
    """
    from rulebench.inferential.registry import TASKS

    entries: list[JsonValue] = []
    for name, entry in TASKS.entries().items():
        try:
            definition = TASKS.load(name)
        except RulebenchError as exc:
            entries.append({"name": name, "package": entry.package, "error": str(exc)})
            continue
        source = "generated" if definition.is_generated else "official (--data-root)"
        if entry.is_plugin:
            source = f"{entry.package}: {'generated' if definition.is_generated else 'files'}"
        entries.append(
            {
                "name": name,
                "package": entry.package,
                "source": source,
                "description": definition.summary,
                "rules_few_all": list(definition.rule_counts),
                "paper_shots": definition.paper_shots,
                "answers": list(definition.answers),
                "robust_fixes": list(definition.judges.fixes),
            }
        )
    return entries


def scenario_entries() -> list[JsonValue]:
    """Every scenario with its versions, parameters and rules (behavior, bucket, versions)."""
    from rulebench.scenarios.registry import REGISTRY

    loaded, _ = REGISTRY.load_all()  # a broken plugin: see the plugins section
    entries: list[JsonValue] = []
    for name, scenario in loaded.items():
        package = REGISTRY.entry(name).package
        in_v3 = "v3" in scenario.versions
        v1_rules = scenario.rules_v1 or scenario.rules
        v3_rules = scenario.rules if in_v3 else ()
        rules: list[JsonValue] = [
            {
                "behavior": rule.behavior,
                "bucket": rule.bucket,
                "versions": [v for v, kept in (("v1", v1_rules), ("v3", v3_rules)) if rule in kept],
            }
            for rule in dict.fromkeys([*v3_rules, *v1_rules])
        ]
        entries.append(
            {
                "name": name,
                "kind": _scenario_kind(scenario.__module__, package),
                "package": package,
                "versions": list(scenario.versions),
                "multi_user": scenario.users,
                "params": list(scenario.params_type.model_fields),
                "rules": rules,
            }
        )
    return entries


def _scenario_kind(module: str, package: str) -> str:
    if package != "rulebench":
        return f"plugin: {package}"
    return "security" if ".security." in module else "game"


def plugin_entries() -> list[JsonValue]:
    """Every task, scenario and model backend from another package or an --include folder.

    Each is loaded, so a broken one shows its error here; the others still work.
    """
    from rulebench.inferential.registry import TASKS
    from rulebench.models.registry import BACKENDS
    from rulebench.scenarios.registry import REGISTRY

    entries: list[JsonValue] = []
    registries = ((TASKS, "-t"), (REGISTRY, "--scenario"), (BACKENDS, "-m"))
    for registry, option in registries:
        for line in registry.problems():
            entries.append({"kind": registry.kind, "error": line})
        for name, entry in registry.entries().items():
            if not entry.is_plugin:
                continue
            found: dict[str, JsonValue] = {
                "kind": registry.kind,
                "name": name,
                "package": entry.package,
                "target": entry.target,
                "use": f"{option} {name}" + ("/<name>" if option == "-m" else ""),
            }
            try:
                registry.load(name)
            except RulebenchError as exc:
                found["error"] = str(exc)
            entries.append(found)
    return entries


def suite_entries() -> list[JsonValue]:
    """The generated suites with their official sizes, then the official releases' suites."""
    from rulebench.cli.config_defaults import default_of
    from rulebench.scenarios.suites.sizes import (
        BUCKET_BEHAVIORS,
        REDTEAM_STRATEGY_WEIGHTS,
        official_sizes,
    )
    from rulebench.scenarios.suites.slots import STRATEGIES
    from rulebench.scenarios.task import GENERATED_SUITES, ScenarioConfig

    behaviors = sum(len(members) for members in BUCKET_BEHAVIORS.values())
    entries: list[JsonValue] = []
    for suite in GENERATED_SUITES:
        sizes = official_sizes(suite)
        buckets: dict[str, JsonValue] = {
            bucket: sum(sizes[m] for m in members) for bucket, members in BUCKET_BEHAVIORS.items()
        }
        entry: dict[str, JsonValue] = {
            "name": suite,
            "source": "generated",
            "cases": sum(sizes.values()),
            "buckets": buckets,
            "default_per_group": default_of(ScenarioConfig, "per_group"),
            "default_per_behavior": default_of(ScenarioConfig, "per_group"),  # 0.1's name
            "default_cases": default_of(ScenarioConfig, "per_group") * behaviors,
            "per_behavior": dict(sizes),
        }
        if suite == "redteam":
            entry["strategies"] = {
                bucket: dict(zip(STRATEGIES, weights, strict=True))
                for bucket, weights in REDTEAM_STRATEGY_WEIGHTS.items()
            }
        entries.append(entry)
    for version, suites in OFFICIAL_SUITES.items():
        entries += [
            {
                "name": name,
                "source": f"official {version} files",
                "cases": cases,
                "default_per_group": "all",  # files the user names run whole
                "default_per_behavior": "all",  # 0.1's name, kept for one release
            }
            for name, cases in suites.items()
        ]
    return entries


def strict_fix_entries() -> list[JsonValue]:
    """The named fixes `--mode strict` applies on top of upstream's decisions."""
    from rulebench.scenarios.matching import STRICT_FIXES

    return [{"name": name, "description": text} for name, text in STRICT_FIXES.items()]


def gcg_target_entries() -> list[JsonValue]:
    """The reply a GCG suffix aims at for every v3 rule, with the user turn it needs."""
    from rulebench.attack.targets import rule_targets

    return [
        {
            "scenario": t.scenario,
            "behavior": t.behavior,
            "bucket": t.bucket,
            "target": t.template,
            "when": t.when,
            "may_pass": t.may_pass,
        }
        for t in rule_targets()
    ]


def _render(section: Section, entries: list[JsonValue]) -> "Table":
    if section == "plugins":
        return _table(
            "Plugins (installed packages' entry points, --include folders)",
            ("kind", "name", "package", "use"),
            [
                (e["kind"], e.get("name", "?"), e.get("package", "?"), _use_or_error(e))
                for e in _dicts(entries)
            ],
        )
    if section == "tasks":
        return _table(
            "Tasks",
            ("task", "run with", "what"),
            [(e["name"], e["command"], e["description"]) for e in _dicts(entries)],
        )
    if section == "inferential":
        return _table(
            "Inferential tasks (rulebench run inferential -t NAME)",
            ("task", "source", "rules few/all", "what"),
            [_inferential_row(e) for e in _dicts(entries)],
        )
    if section == "scenarios":
        return _table(
            "Scenarios (--scenario NAME, rulebench play NAME)",
            ("scenario", "kind", "versions", "rules: behavior (bucket)"),
            [
                (e["name"], e["kind"], "/".join(_strs(e["versions"])), _rules_cell(e["rules"]))
                for e in _dicts(entries)
            ],
        )
    if section == "suites":
        return _table(
            "Suites (--suite NAME; official files: --suite FOLDER_OR_FILE)",
            ("suite", "source", "cases", "run by default (--full: all)"),
            [_suite_row(e) for e in _dicts(entries)],
        )
    if section == "gcg-targets":
        return _table(
            "GCG targets per rule (fields are the scenario's params; \\n: a line break)",
            ("behavior", "bucket", "target", "when", "a target-prefixed reply may still pass"),
            [
                (
                    e["behavior"],
                    e["bucket"],
                    str(e["target"]).replace("\n", "\\n"),
                    e["when"],
                    e["may_pass"] or "never",
                )
                for e in _dicts(entries)
            ],
        )
    return _table(
        "Strict fixes (--mode strict)",
        ("fix", "what it changes"),
        [(e["name"], e["description"]) for e in _dicts(entries)],
    )


def _inferential_row(entry: dict[str, JsonValue]) -> tuple[JsonValue, ...]:
    if "error" in entry:
        return (entry["name"], entry["package"], "", f"error: {entry['error']}")
    rules = "/".join(_strs(entry["rules_few_all"]))
    return (entry["name"], entry["source"], rules, entry["description"])


def _use_or_error(entry: dict[str, JsonValue]) -> JsonValue:
    return f"error: {entry['error']}" if "error" in entry else entry["use"]


def _suite_row(entry: dict[str, JsonValue]) -> tuple[JsonValue, ...]:
    buckets = entry.get("buckets")
    split = (
        " (" + ", ".join(f"{b} {n}" for b, n in buckets.items()) + ")"
        if isinstance(buckets, dict)
        else ""
    )
    per_group = entry["default_per_group"]
    default = "all" if per_group == "all" else f"{per_group} per behavior"
    if "default_cases" in entry:
        default += f" ({entry['default_cases']})"
    return (entry["name"], entry["source"], f"{entry['cases']}{split}", default)


def _rules_cell(rules: JsonValue) -> str:
    lines = []
    for rule in _dicts(rules):
        only = _strs(rule["versions"])
        note = f", {only[0]} only" if len(only) == 1 else ""
        lines.append(f"{rule['behavior']} ({rule['bucket']}{note})")
    return "\n".join(lines)


def _table(title: str, header: tuple[str, ...], rows: list[tuple[JsonValue, ...]]) -> "Table":
    from rich.table import Table
    from rich.text import Text

    # At least as wide as its title: an empty table (no plugins) would fold the title otherwise.
    table = Table(title=title, title_justify="left", min_width=len(title))
    for column in header:
        table.add_column(column, no_wrap=column in ("task", "scenario", "suite", "fix"))
    for row in rows:
        # Text cells: as markup, "[REDACTED]" or "rulebench[hf]" would lose their brackets.
        table.add_row(*(Text(str(cell)) for cell in row))
    return table


def _dicts(value: JsonValue) -> list[dict[str, JsonValue]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _strs(value: JsonValue) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []
