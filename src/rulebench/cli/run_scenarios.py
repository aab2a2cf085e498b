"""`rulebench run scenarios`: the RuLES suites on a model."""

from typing import Annotated, Literal

import typer

from rulebench.cli import options as opt
from rulebench.cli.config_defaults import default_of, shown_default
from rulebench.cli.console import err
from rulebench.cli.execute import run_task, typed_config
from rulebench.cli.reasoning_flags import JudgeReasoningOption
from rulebench.cli.renamed_options import pick_renamed
from rulebench.cli.scenario_wording import (
    NOT_COMPARABLE,
    PromptsOption,
    UpstreamOption,
    wording_fields,
)
from rulebench.report.untrusted import safe_text
from rulebench.scenarios.matching import STRICT_FIXES
from rulebench.scenarios.protocol import PUBLISHED_V3_MAX_TOKENS, Protocol
from rulebench.scenarios.sizes import FULL_MAX_TOKENS, QUICK_MAX_TOKENS, official_sizes_text
from rulebench.scenarios.task import GENERATED_SUITES, ScenarioConfig

MODE_HELP = "compat: upstream v3 pass/fail decisions exactly. strict: " + "; ".join(
    f"{name} ({description})" for name, description in STRICT_FIXES.items()
)


@opt.run_command()
def scenarios(
    run: opt.RunOptions,
    suite: Annotated[
        list[str] | None,
        typer.Option(
            "--suite",
            "-s",
            help="Repeatable: benign, basic, redteam (generated from --seed), "
            "or a folder / .jsonl file of official test cases.",
            show_default=shown_default(ScenarioConfig, "suites"),
        ),
    ] = None,
    scenario: Annotated[
        list[str] | None,
        typer.Option(
            "--scenario",
            help="Only this scenario, repeatable (default: every scenario of --version; `rulebench "
            "list scenarios` names them).",
            show_default=False,
        ),
    ] = None,
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help=f"Official sizes of the generated suites ({official_sizes_text()}): every "
            f"case, at max_tokens {FULL_MAX_TOKENS} instead of {QUICK_MAX_TOKENS}.",
        ),
    ] = False,
    per_group: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Cases per behavior of each generated suite (files run whole). A suite whose "
            f"every case runs plays at max_tokens {FULL_MAX_TOKENS} (its official size), a cut "
            f"one at {QUICK_MAX_TOKENS} (quick).",
            show_default=shown_default(ScenarioConfig, "per_group", none="all"),
        ),
    ] = None,
    per_behavior: Annotated[int | None, typer.Option(min=1, hidden=True)] = None,
    placement: Annotated[
        Literal["user", "system"] | None,
        typer.Option(
            help="Instructions as the first user message + placeholder reply, or as the "
            "system message (saved cases: as recorded).",
            show_default=shown_default(Protocol, "placement"),
        ),
    ] = None,
    no_reminders: Annotated[
        bool, typer.Option("--no-reminders", help="Drop the precedence reminders around the rules.")
    ] = False,
    system_message: Annotated[
        str | None,
        typer.Option(
            help="Named system message, sent before the instructions (user placement only): "
            "helpful, praise, criticism, threat, begging, warning, pirate.",
            show_default=False,
        ),
    ] = None,
    preset: Annotated[
        Literal["published-v3"] | None,
        typer.Option(
            help="published-v3: system placement, no reminders and upstream's reply limit, "
            f"max_tokens {PUBLISHED_V3_MAX_TOKENS} (the published v3 numbers' setup; comparable "
            "with them only with --prompts upstream); --placement user and --system-message "
            "conflict with it, --max-tokens replaces the limit.",
            show_default=False,
        ),
    ] = None,
    mode: Annotated[
        Literal["compat", "strict"] | None,
        typer.Option(
            help=MODE_HELP + " (saved cases: as recorded).",
            show_default=shown_default(Protocol, "mode"),
        ),
    ] = None,
    version: Annotated[
        Literal["v1", "v3"] | None,
        typer.Option(
            help="Version of official files given to --suite (v1: v1 evaluators).",
            show_default=shown_default(ScenarioConfig, "version"),
        ),
    ] = None,
    repeats: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Play every case N times (std of failures across repeats).",
            show_default=shown_default(ScenarioConfig, "repeats"),
        ),
    ] = None,
    suffix: Annotated[
        str | None,
        typer.Option(
            "--suffix",
            metavar="FILE|RUN",
            help="Adversarial suffix appended to user messages: a text file holding it (trailing "
            "newline dropped) or the id of a `rulebench attack gcg` run in the store, whose "
            "last step's suffix is used. Item ids stay the unsuffixed ones, so `rulebench "
            "report BASE SUFFIXED` pairs the runs.",
            show_default=False,
        ),
    ] = None,
    suffix_on: Annotated[
        Literal["every", "first", "last"] | None,
        typer.Option(
            "--suffix-on",
            help="Which user messages of each case get --suffix: every one, the first or the last "
            "(prefilled user turns included).",
            show_default=shown_default(ScenarioConfig, "suffix_on"),
        ),
    ] = None,
    prompts: PromptsOption = None,
    upstream: UpstreamOption = None,
    judge_reasoning: JudgeReasoningOption = False,
) -> None:
    """Rule-obeying scenarios: the RuLES v3 games and security scenarios, one reply per user turn.

    Default: the quick size of our generated basic suite (--per-group cases per
    behavior, short replies), instructions in the first user message with
    reminders, compat evaluation. --full runs the official sizes with room for
    longer replies. Files of cases (-s FILE) run whole, and cases saved by `play`
    or the playground replay with the settings they were played with, unless an
    option says otherwise.
    """
    from rulebench.attack.suffixes import load_suffix
    from rulebench.core.errors import ConfigError
    from rulebench.scenarios.protocol import PUBLISHED_V3
    from rulebench.scenarios.suffix import suffix_label
    from rulebench.scenarios.task import replay_notes, saved_wordings

    suites: tuple[str, ...] = tuple(suite) if suite else default_of(ScenarioConfig, "suites")
    per_group = pick_renamed(per_group, per_behavior, new="--per-group", old="--per-behavior")
    if full and per_group is not None:
        raise ConfigError("--full runs the official sizes: drop --per-group N, or --full")
    given: dict[str, object] = {
        **({"placement": placement} if placement else {}),
        **({"reminders": False} if no_reminders else {}),
        **({"system_message": system_message} if system_message else {}),
        **({"mode": mode} if mode else {}),
    }
    if preset:
        _check_preset(preset, placement, system_message)
        given |= PUBLISHED_V3.model_dump(include={"placement", "reminders", "system_message"})
        if run.max_tokens is None:  # upstream's limit, as a given one: every case plays at it
            run = run._replace(max_tokens=PUBLISHED_V3_MAX_TOKENS)
    moved_clone = prompts is None and upstream is not None  # a saved upstream game's clone
    wording = {} if moved_clone else wording_fields(prompts, upstream, suites)
    protocol = Protocol.model_validate({**given, **wording})
    if preset and protocol.prompts != "upstream":
        err.print(safe_text(NOT_COMPARABLE, style="yellow"), highlight=False)
    loaded = load_suffix(suffix, run.store) if suffix is not None else None
    text, source = (loaded.text, loaded.source) if loaded else (None, None)
    config = typed_config(
        ScenarioConfig,
        suites=suites,
        seed=run.seed,
        **({"per_group": None if full else per_group} if full or per_group else {}),
        scenarios=tuple(scenario or []),
        protocol=protocol,
        suffix=text,
        suffix_source=source,
        **opt.given_only(version=version, repeats=repeats, suffix_on=suffix_on),
        **({"judge_reasoning": True} if judge_reasoning else {}),
        **({"upstream": str(upstream.resolve())} if moved_clone and upstream else {}),
    )
    generation = {"max_tokens": run.max_tokens, "temperature": run.temperature}
    notes = replay_notes(
        config, {**given, **{k: v for k, v in generation.items() if v is not None}}
    )
    given_wording = protocol.label() + (
        "" if protocol.prompts == "upstream" else f"; {protocol.prompts_label()}"
    )
    if notes is None:
        protocol_line = given_wording
    else:  # saved cases replay in their own recorded protocol and wording
        saved = saved_wordings(config)
        protocol_line = f"saved cases as recorded ({'; '.join(saved.labels)})"
        protocol_line += "" if saved.every_case else f", others {given_wording}"
    if notes:
        err.print(
            safe_text(
                "warning: options given replace saved cases' recorded settings: "
                + "; ".join(notes),
                style="yellow",
            ),
            highlight=False,
        )
    suffix_part = f"; {suffix_label(text, config.suffix_on, source)}" if text is not None else ""
    err.print(
        safe_text(
            _cases_line(config, run.max_tokens, notes)
            + protocol_line
            + suffix_part
            + _full_hint(config, run.max_tokens)
        ),
        highlight=False,
    )
    run_task("scenarios", config, run)


def _cases_line(config: ScenarioConfig, max_tokens: int | None, notes: list[str] | None) -> str:
    """How many cases, and each suite's reply limit where they differ, up to "protocol: "."""
    cap = config.per_group
    line = f"cases: {'all' if cap is None or not config.has_generated() else f'{cap} per behavior'}"
    limits = config.reply_limits()
    if max_tokens is None and notes is None and len(set(limits)) > 1:
        per_suite = zip(limits, config.suites, strict=True)
        line += "; max_tokens " + ", ".join(f"{limit} for {suite}" for limit, suite in per_suite)
    return line + "; protocol: "


def _full_hint(config: ScenarioConfig, max_tokens: int | None) -> str:
    """Names --full while a generated suite is cut to its quick size.

    And the official size's limit, unless the run names one (`--max-tokens`, or a preset's).
    """
    sizes = zip(config.suites, config.suite_sizes(), strict=True)
    if all(size == "official" for suite, size in sizes if suite in GENERATED_SUITES):
        return ""
    limit = f" and max_tokens {FULL_MAX_TOKENS}" if max_tokens is None else ""
    return f" (--full for the official sizes{limit})"


def _check_preset(preset: str, placement: str | None, system_message: str | None) -> None:
    """A preset fixes the protocol: an option that would change it is an error, not ignored."""
    from rulebench.core.errors import ConfigError

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
