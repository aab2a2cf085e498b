"""The options of `run scenarios` as a front end takes them, turned into the run's config.

The command line and the Python API (`rulebench.run("scenarios", config=ScenarioOptions(...))`)
both call `prepare_scenarios`: it checks the options together (a preset's conflicts, --full
beside --per-group), reads once what they name (the clone, the cases), and composes what a
front end prints before the run starts, so both store the same spec and say the same things.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from rulebench.core.errors import ConfigError
from rulebench.core.validation import validate_labelled
from rulebench.core.wording import Prompts
from rulebench.scenarios.base import EvalMode, Version
from rulebench.scenarios.config import ScenarioConfig
from rulebench.scenarios.matching import STRICT_FIXES
from rulebench.scenarios.protocol import PUBLISHED_V3, PUBLISHED_V3_MAX_TOKENS, Placement, Protocol
from rulebench.scenarios.run_notes import replay_notes, run_line
from rulebench.scenarios.sizes import FULL_MAX_TOKENS, QUICK_MAX_TOKENS, official_sizes_text
from rulebench.scenarios.suffix import SuffixOn
from rulebench.scenarios.system_messages import SYSTEM_MESSAGES
from rulebench.scenarios.upstream.text import clone_record, wording_fields

Preset = Literal["published-v3"]

STRICT_HELP = "; ".join(f"{name} ({description})" for name, description in STRICT_FIXES.items())
NOT_COMPARABLE = (
    "warning: --preset published-v3 with rulebench's own instruction text: the numbers are not "
    "comparable with the published v3 table, whose models got RuLES's own text (add --prompts "
    "upstream --upstream PATH to your clone of normster/llm_rules)"
)
"""Said when the published setup runs with our wording."""
REPLACED = "warning: options given replace saved cases' recorded settings: "
"""Opens the line naming each recorded setting an option replaces (`run_notes.replay_notes`)."""


class ScenarioOptions(BaseModel):
    """The options of `run scenarios`: each None (or empty, or False) when not given.

    Each field's docstring is its option's help (`use_attribute_docstrings`). An option left
    out takes the config's default (`ScenarioConfig`, `Protocol`); one given also replaces
    the setting a saved case recorded.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    suites: tuple[str, ...] = ()
    """Repeatable: benign, basic, redteam (generated from --seed), or a folder / .jsonl file of
    official test cases."""
    scenarios: tuple[str, ...] = ()
    """Only this scenario, repeatable (default: every scenario of --version; `rulebench list
    scenarios` names them)."""
    full: bool = Field(
        default=False,
        description=f"Official sizes of the generated suites ({official_sizes_text()}): every "
        f"case, at max_tokens {FULL_MAX_TOKENS} instead of {QUICK_MAX_TOKENS}.",
    )
    per_group: int | None = Field(
        default=None,
        ge=1,
        description="Cases per behavior of each generated suite (files run whole). A suite "
        f"whose every case runs plays at max_tokens {FULL_MAX_TOKENS} (its official size), a "
        f"cut one at {QUICK_MAX_TOKENS} (quick).",
    )
    placement: Placement | None = None
    """Instructions as the first user message + placeholder reply, or as the system message
    (saved cases: as recorded)."""
    no_reminders: bool = False
    """Drop the precedence reminders around the rules."""
    system_message: str | None = Field(
        default=None,
        description="Named system message, sent before the instructions (user placement "
        f"only): {', '.join(SYSTEM_MESSAGES)}.",
    )
    preset: Preset | None = Field(
        default=None,
        description="published-v3: system placement, no reminders and upstream's reply limit, "
        f"max_tokens {PUBLISHED_V3_MAX_TOKENS} (the published v3 numbers' setup; comparable "
        "with them only with --prompts upstream); --placement user and --system-message "
        "conflict with it, --max-tokens replaces the limit.",
    )
    mode: EvalMode | None = Field(
        default=None,
        description=f"compat: upstream v3 pass/fail decisions exactly. strict: {STRICT_HELP} "
        "(saved cases: as recorded).",
    )
    version: Version | None = None
    """Version of official files given to --suite (v1: v1 evaluators)."""
    repeats: int | None = Field(default=None, ge=1)
    """Play every case N times (std of failures across repeats)."""
    suffix: str | None = None
    """An adversarial suffix's text, appended to user messages (the CLI reads it from a file
    or a `rulebench attack gcg` run: `--suffix FILE|RUN`)."""
    suffix_source: str | None = None
    """Where the suffix came from, as the user named it (a file, a GCG run)."""
    suffix_on: SuffixOn | None = None
    """Which user messages of each case get --suffix: every one, the first or the last
    (prefilled user turns included)."""
    prompts: Prompts | None = None
    """Whose instruction text: rulebench's own wording (default) or RuLES's v3 text, read from
    your clone (--upstream; `run scenarios` also finds the clone holding --suite's data); only
    upstream's text makes numbers comparable with the published ones."""
    upstream: Path | None = None
    """Your clone of normster/llm_rules (or of the lm-evaluation-harness fork that vendors it):
    its root, the folder holding scenarios/, or scenarios/ itself. Read only with --prompts
    upstream; its commit is recorded with the run."""
    judge_reasoning: bool = False
    """Also judge each reply's thinking with its answer: the answer's verdict stays the score,
    and reports set the rate of rules kept anywhere (a secret quoted in the thinking is a
    leak) beside it."""
    seed: int = 0
    """Seeds the generated suites' parameters and texts."""


class PreparedScenarios(NamedTuple):
    """A scenarios run made from options: its config and what a front end says before it."""

    config: ScenarioConfig
    max_tokens: int | None
    """The run's reply limit: the one it names, else the preset's (None: the config's)."""
    warnings: tuple[str, ...]
    """Printed before the run (yellow in a terminal)."""
    run_line: str
    """"cases: ...; protocol: ..." (`run_notes.run_line`)."""


def prepare_scenarios(
    options: ScenarioOptions,
    max_tokens: int | None = None,
    temperature: float | None = None,
    label: Callable[[str], str] = str,
) -> PreparedScenarios:
    """The run's validated config from its options, read once, and its notes.

    Args:
        options: the options given.
        max_tokens: the run's own reply limit (`--max-tokens`), if any.
        temperature: the run's own temperature, if any.
        label: how an error names a config field (the CLI spells it as its option).

    Raises:
        ConfigError: options that conflict, or a value the config refuses (one line).
    """
    if options.full and options.per_group is not None:
        raise ConfigError("--full runs the official sizes: drop --per-group N, or --full")
    given = given_protocol(options)
    if options.preset and max_tokens is None:  # upstream's limit, as a given one
        max_tokens = PUBLISHED_V3_MAX_TOKENS
    suites = options.suites or ScenarioConfig.model_fields["suites"].default
    is_moved_clone = options.prompts is None and options.upstream is not None
    wording = {} if is_moved_clone else wording_fields(options.prompts, options.upstream, suites)
    protocol = Protocol.model_validate({**given, **wording})
    warnings = [NOT_COMPARABLE] if options.preset and protocol.prompts != "upstream" else []
    fields = config_fields(options, suites, protocol, is_moved_clone)
    config = validate_labelled(ScenarioConfig, fields, label).with_inputs_loaded()
    loaded = config.run_cases()  # loaded once: the notes, the spec and its limits read these
    generation = {"max_tokens": max_tokens, "temperature": temperature}
    named = {name: value for name, value in generation.items() if value is not None}
    notes = replay_notes(config, {**given, **named}, loaded.cases)
    if notes:
        warnings.append(REPLACED + "; ".join(notes))
    return PreparedScenarios(
        config, max_tokens, tuple(warnings), run_line(config, loaded, max_tokens, notes)
    )


def given_protocol(options: ScenarioOptions) -> dict[str, object]:
    """The protocol fields the options set: a preset's, or those given one by one."""
    given: dict[str, object] = {
        **({"placement": options.placement} if options.placement else {}),
        **({"reminders": False} if options.no_reminders else {}),
        **({"system_message": options.system_message} if options.system_message else {}),
        **({"mode": options.mode} if options.mode else {}),
    }
    if options.preset:
        check_preset(options.preset, options.placement, options.system_message)
        given |= PUBLISHED_V3.model_dump(include={"placement", "reminders", "system_message"})
    return given


def check_preset(preset: Preset, placement: str | None, system_message: str | None) -> None:
    """A preset fixes the protocol: an option that would change it is an error, not ignored."""
    conflicts = [
        *([f"--placement {placement}"] if placement not in (None, "system") else []),
        *([f"--system-message {system_message}"] if system_message else []),
    ]
    if conflicts:
        raise ConfigError(
            f"--preset {preset} fixes the protocol (system placement, no reminders, no system "
            f"message): drop {' and '.join(conflicts)}, or drop --preset and set the protocol "
            "with --placement, --no-reminders and --system-message"
        )


def config_fields(
    options: ScenarioOptions, suites: tuple[str, ...], protocol: Protocol, is_moved_clone: bool
) -> dict[str, object]:
    """The config's fields: those the options give (the others keep the config's defaults).

    `is_moved_clone`: `--upstream` alone names where saved games' clone now is.
    """
    cap = options.per_group
    optional = {
        "version": options.version,
        "repeats": options.repeats,
        "suffix_on": options.suffix_on,
    }
    return {
        "suites": suites,
        "seed": options.seed,
        **({"per_group": None if options.full else cap} if options.full or cap else {}),
        "scenarios": options.scenarios,
        "protocol": protocol,
        "suffix": options.suffix,
        "suffix_source": options.suffix_source,
        **{name: value for name, value in optional.items() if value is not None},
        **({"judge_reasoning": True} if options.judge_reasoning else {}),
        **(
            {"upstream": clone_record(options.upstream.resolve())}
            if is_moved_clone and options.upstream
            else {}
        ),
    }
