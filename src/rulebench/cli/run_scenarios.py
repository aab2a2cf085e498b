"""`rulebench run scenarios`: the RuLES suites on a model."""

from typing import Annotated, Literal

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err
from rulebench.cli.execute import run_task, typed_config
from rulebench.cli.scenario_wording import (
    NOT_COMPARABLE,
    PromptsOption,
    UpstreamOption,
    wording_fields,
)
from rulebench.report.untrusted import safe_text
from rulebench.scenarios.matching import STRICT_FIXES

# Quick defaults keep a run on the embedded CPU model to minutes; --full is the official size.
QUICK_PER_BEHAVIOR = 5
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
            "or a folder / .jsonl file of official test cases. Default: basic.",
            show_default=False,
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
            help="Official sizes (25 per behavior in benign/basic, 39-41 in redteam) and "
            "max_tokens 512.",
        ),
    ] = False,
    per_behavior: Annotated[
        int | None,
        typer.Option(
            min=1,
            help=f"Cases per behavior and suite (default {QUICK_PER_BEHAVIOR}; --full: all).",
            show_default=False,
        ),
    ] = None,
    placement: Annotated[
        Literal["user", "system"] | None,
        typer.Option(
            help="Instructions as the first user message + placeholder reply, or as the "
            "system message. Default: user.",
            show_default=False,
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
            help="published-v3: system placement, no reminders (the published v3 numbers' "
            "setup; comparable with them only with --prompts upstream); --placement user and "
            "--system-message conflict with it.",
            show_default=False,
        ),
    ] = None,
    mode: Annotated[
        Literal["compat", "strict"],
        typer.Option(help=MODE_HELP),
    ] = "compat",
    version: Annotated[
        Literal["v1", "v3"],
        typer.Option(help="Version of official files given to --suite (v1: v1 evaluators)."),
    ] = "v3",
    repeats: Annotated[
        int, typer.Option(min=1, help="Play every case N times (std of failures across repeats).")
    ] = 1,
    suffix: Annotated[
        str | None,
        typer.Option(
            "--suffix",
            metavar="FILE|RUN",
            help="Adversarial suffix appended to user messages: a text file holding it (trailing "
            "newline dropped) or the id of a `rulebench attack gcg` run in the store, whose "
            "last step's suffix is used. Item ids stay the unsuffixed ones, so `rulebench "
            "report scenarios BASE SUFFIXED` pairs the runs.",
            show_default=False,
        ),
    ] = None,
    suffix_on: Annotated[
        Literal["every", "first", "last"],
        typer.Option(
            "--suffix-on",
            help="Which user messages of each case get --suffix: every one, the first or the last "
            "(prefilled user turns included).",
        ),
    ] = "every",
    prompts: PromptsOption = None,
    upstream: UpstreamOption = None,
) -> None:
    """Rule-obeying scenarios: the RuLES v3 games and security scenarios, one reply per user turn.

    Default: our generated basic suite, 5 cases per behavior (95), instructions in the first
    user message with reminders, compat evaluation, max_tokens 128. `--full` runs the official
    sizes with max_tokens 512.
    """
    from rulebench.attack.suffixes import load_suffix
    from rulebench.scenarios.protocol import PUBLISHED_V3, Protocol
    from rulebench.scenarios.suffix import suffix_label
    from rulebench.scenarios.task import ScenarioConfig

    suites = tuple(suite or ["basic"])
    wording = wording_fields(prompts, upstream, suites)
    if preset:
        _check_preset(preset, placement, system_message)
        protocol = Protocol.model_validate({**PUBLISHED_V3.model_dump(), "mode": mode, **wording})
        if protocol.prompts != "upstream":
            err.print(safe_text(NOT_COMPARABLE, style="yellow"), highlight=False)
    else:
        protocol = Protocol.model_validate(
            {
                "placement": placement or "user",
                "reminders": not no_reminders,
                "system_message": system_message,
                "mode": mode,
                **wording,
            }
        )
    cap = per_behavior or (None if full else QUICK_PER_BEHAVIOR)
    loaded = load_suffix(suffix, run.store) if suffix is not None else None
    text, source = (loaded.text, loaded.source) if loaded else (None, None)
    config = typed_config(
        ScenarioConfig,
        suites=suites,
        seed=run.seed,
        per_behavior=cap,
        scenarios=tuple(scenario or []),
        protocol=protocol,
        repeats=repeats,
        version=version,
        suffix=text,
        suffix_on=suffix_on,
        suffix_source=source,
    )
    err.print(
        safe_text(
            f"cases: {'all' if cap is None else f'{cap} per behavior'}; protocol: "
            f"{protocol.label()}"
            + ("" if protocol.prompts == "upstream" else f"; {protocol.prompts_label()}")
            + (f"; {suffix_label(text, suffix_on, source)}" if text is not None else "")
            + ("" if full else " (--full for the official sizes and max_tokens 512)")
        ),
        highlight=False,
    )
    run_task("scenarios", config, run)


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
