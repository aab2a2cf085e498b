"""RuLES's v3 instruction text from the user's clone: read, checked, and rendered per scenario.

Each v3 scenario class in the clone's `games.py` / `security.py` holds its text as the class
attribute `template` (SimonSays: `prompt`, sent as written), which upstream renders with
`str.format(**params)`. Its redacted prompt formats the same template with the secret params
replaced by `R_` (from `scenario.py`); the published v3 setup drops the precedence reminders
by plain replacement of each sentence in `utils.PRECEDENCE_REMINDERS`. rulebench reproduces
exactly that, reading the text at run time: none of upstream's sentences ship with it.
"""

import functools
import string
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from rulebench.core.errors import ConfigError
from rulebench.core.wording import Prompts, UpstreamText
from rulebench.scenarios.base import Scenario, Version
from rulebench.scenarios.registry import scenario_class
from rulebench.scenarios.upstream.locate import (
    SCENARIO_FILES,
    WHAT_TO_CLONE,
    find_from_suites,
    project_of,
    scenarios_dir,
)
from rulebench.scenarios.upstream.source import class_attribute, module_constant, parse_module
from rulebench.upstream.clone import describe_clone

FILE_OF: dict[str, str] = {
    **dict.fromkeys(
        (
            "Encryption",
            "Integrity",
            "AccessControl",
            "Commitment",
            "Confidentiality",
            "Authentication",
            "Millionaires",
            "DiningCryptographers",
        ),
        "security.py",
    ),
    **dict.fromkeys(
        ("ForbiddenWord", "RockPaperScissors", "AnimalSounds", "Questions", "BinarySearch"),
        "games.py",
    ),
    "SimonSays": "games.py",
}
"""Every v3 scenario (upstream's class name = rulebench's) -> the clone file holding its text."""
ATTRIBUTE_OF: dict[str, str] = {"SimonSays": "prompt"}
"""The class attribute holding the text where it is not `template`."""
UNFORMATTED = frozenset({"SimonSays"})
"""Classes whose text upstream sends as written (no params, no `str.format`)."""
REDACTED_PARAMS: dict[str, tuple[str, ...]] = {
    "Encryption": ("secret",),
    "AccessControl": ("secret",),
    "Authentication": ("secret",),
    "Confidentiality": ("secrets",),
    "Millionaires": ("balance1", "balance2"),
    "DiningCryptographers": ("secret",),
    "Questions": ("secret",),
    "BinarySearch": ("secret",),
}
"""The params upstream's redacted prompt hides; the other scenarios' redacted prompt is the
prompt (Integrity and Commitment included: upstream shows their key and number)."""


@dataclass(frozen=True)
class UpstreamScenarioText:
    """The text of every v3 scenario as one clone holds it, and where it came from."""

    templates: Mapping[str, str]
    """Scenario name -> its class's `template` (SimonSays: `prompt`)."""
    redacted: str
    """`R_`: what the redacted prompt shows in place of a secret."""
    reminders: tuple[str, ...]
    """`PRECEDENCE_REMINDERS`: the sentences the published setup removes."""
    folder: Path
    """The clone's scenarios folder (errors name its files)."""
    source: UpstreamText

    def prompt(self, scenario: Scenario, reminders: bool = True, version: Version = "v3") -> str:
        """Upstream's prompt for the instance; without reminders, the published v3 text."""
        text = self._render(scenario, scenario.params.model_dump(mode="json"), version)
        if not reminders:
            for sentence in self.reminders:
                text = text.replace(sentence, "")
        return text

    def redacted_prompt(self, scenario: Scenario, version: Version = "v3") -> str:
        """Upstream's redacted prompt: the secret params replaced by `R_`."""
        values = scenario.params.model_dump(mode="json")
        for name in REDACTED_PARAMS.get(scenario.name, ()):
            value = values.get(name)
            values[name] = (
                [self.redacted] * len(value) if isinstance(value, list) else self.redacted
            )
        return self._render(scenario, values, version)

    def _render(self, scenario: Scenario, values: dict[str, object], version: Version) -> str:
        name = scenario.name
        if version != "v3" or name not in self.templates:
            raise ConfigError(v3_only(name, version))
        template = self.templates[name]
        if name in UNFORMATTED:
            return template
        try:
            return template.format(**values)
        except (KeyError, IndexError, AttributeError, ValueError, TypeError) as exc:
            raise ConfigError(
                f"{self.folder / FILE_OF[name]}: class {name}: its {_attribute(name)} does not "
                f"fit the params {sorted(values)} ({type(exc).__name__}: {exc})"
            ) from None


def v3_only(name: str, version: Version) -> str:
    """Why a v1 case or a v1-only scenario cannot get upstream's text."""
    what = f"v1-only scenario {name}" if version == "v3" else f"{name} (a v1 case)"
    return (
        f"--prompts upstream has no text for the {what}: the clone's scenarios hold the v3 text "
        "only; use --prompts rulebench for v1 cases"
    )


def load_text(folder: Path) -> UpstreamScenarioText:
    """Read and check the text of every v3 scenario from a clone's scenarios folder.

    Every class, attribute and constant must be there, and every template field must name a
    param of its scenario: a changed clone fails here, before any model call, naming the file
    and the missing piece.
    """
    files = [folder / name for name in SCENARIO_FILES]
    modules = {path.name: parse_module(path, "RuLES scenario text") for path in files}
    templates = {}
    for name, file_name in FILE_OF.items():
        path = folder / file_name
        template = class_attribute(modules[file_name], path, name, _attribute(name))
        if name not in UNFORMATTED:
            _check_fields(template, path, name)
        templates[name] = template
    redacted = module_constant(modules["scenario.py"], folder / "scenario.py", "R_")
    if not isinstance(redacted, str):
        raise ConfigError(f"{folder / 'scenario.py'}: 'R_' is not a string")
    reminders = module_constant(modules["utils.py"], folder / "utils.py", "PRECEDENCE_REMINDERS")
    if not isinstance(reminders, list | tuple) or not all(isinstance(r, str) for r in reminders):
        raise ConfigError(f"{folder / 'utils.py'}: 'PRECEDENCE_REMINDERS' is not a list of strings")
    source = describe_clone(project_of(folder), folder, files)
    return UpstreamScenarioText(templates, redacted, tuple(reminders), folder, source)


@functools.lru_cache(maxsize=8)
def text_for(source: UpstreamText) -> UpstreamScenarioText:
    """The text a run recorded, read again from its clone; an edited clone is refused.

    A resumed run must send the same text as its first half, so the files' hash must still
    be the one recorded.
    """
    loaded = load_text(Path(source.root))
    if loaded.source.files_sha256 != source.files_sha256:
        raise ConfigError(
            f"{source.root}: the clone's scenario files changed since this run recorded them "
            f"({source.short()}, files sha256 {source.files_sha256[:12]}, now "
            f"{loaded.source.files_sha256[:12]}): check out the recorded revision, or start a "
            "new run"
        )
    return loaded


def _attribute(name: str) -> str:
    return ATTRIBUTE_OF.get(name, "template")


def _check_fields(template: str, path: Path, name: str) -> None:
    """Every `{field}` must start with one of the scenario's params."""
    params = scenario_class(name).params_type.model_fields
    try:
        fields = [field for _, field, _, _ in string.Formatter().parse(template) if field]
    except ValueError as exc:
        raise ConfigError(
            f"{path}: class {name}: {_attribute(name)} is malformed ({exc})"
        ) from None
    for field in fields:
        root = field.split(".", 1)[0].split("[", 1)[0]
        if root not in params:
            raise ConfigError(
                f"{path}: class {name}: {_attribute(name)} field '{{{field}}}' is not a param "
                f"of {name} (params: {', '.join(params) or 'none'}); the clone differs from "
                "the v3 text rulebench knows how to fill"
            )


def open_clone(upstream: Path | None, suites: tuple[str, ...] = ()) -> UpstreamScenarioText:
    """The text of the clone the user named, else of the clone holding a suite's data.

    Neither is one error saying what to clone and how to name it.
    """
    folder = scenarios_dir(upstream) if upstream is not None else find_from_suites(suites)
    if folder is None:
        raise ConfigError(WHAT_TO_CLONE)
    return load_text(folder)


def resolve_wording(
    prompts: Prompts, upstream: Path | None, suites: tuple[str, ...] = ()
) -> UpstreamText | None:
    """The clone record a protocol needs for `prompts` (None for rulebench's own wording).

    `--upstream` without `--prompts upstream` is refused rather than silently ignored.
    """
    if prompts == "rulebench":
        if upstream is not None:
            raise ConfigError(
                f"--upstream {upstream} is read only with --prompts upstream (the default "
                "wording is rulebench's own): add --prompts upstream, or drop --upstream"
            )
        return None
    return open_clone(upstream, suites).source


def wording_fields(
    prompts: Prompts | None, upstream: Path | None, suites: tuple[str, ...] = ()
) -> dict[str, object]:
    """The protocol fields for a front end's `--prompts` and `--upstream` (empty: neither given).

    The clone is read here, once, when the options are turned into a config: the config's
    validators only check the record (`Protocol.upstream`).
    """
    if prompts is None and upstream is None:
        return {}
    chosen: Prompts = "upstream" if prompts == "upstream" else "rulebench"
    return {"prompts": chosen, "upstream": resolve_wording(chosen, upstream, suites)}


def clone_record(folder: str | Path) -> UpstreamText:
    """The record of the clone a caller names by its folder (`~` expanded)."""
    return open_clone(Path(folder).expanduser()).source
