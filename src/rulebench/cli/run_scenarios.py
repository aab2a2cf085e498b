"""`rulebench run scenarios`: the RuLES suites on a model."""

import inspect
from typing import Annotated, Any

import typer
from pydantic import BaseModel

from rulebench.cli import options as opt
from rulebench.cli.console import err
from rulebench.cli.execute import run_task
from rulebench.cli.field_options import field_bounds, field_option
from rulebench.cli.option_stack import OptionBlock, keyword, with_options
from rulebench.cli.renamed_options import pick_renamed
from rulebench.cli.run_terms import option_name
from rulebench.cli.scenario_wording import PromptsOption, UpstreamOption
from rulebench.core.field_defaults import shown_default
from rulebench.report.untrusted import safe_text
from rulebench.scenarios.config import ScenarioConfig
from rulebench.scenarios.protocol import Protocol
from rulebench.scenarios.run_options import ScenarioOptions


def _option(
    field: str, *flags: str, default_of: type[BaseModel] | None = None, kind: object = None
) -> inspect.Parameter:
    """The option filling `ScenarioOptions.field`, typed as the field unless `kind` says.

    --help shows the default of the config that holds it (`default_of`), else none.
    """
    shown = shown_default(default_of, field) if default_of else False
    declared = ScenarioOptions.model_fields[field]
    flag = field_option(ScenarioOptions, field, *flags, shown=shown)
    default = False if declared.annotation is bool else None
    return keyword(field, Annotated[kind or declared.annotation, flag], default)


SUFFIX_OPTION = typer.Option(
    "--suffix",
    metavar="FILE|RUN",
    help="Adversarial suffix appended to user messages: a text file holding it (trailing "
    "newline dropped) or the id of a `rulebench attack gcg` run in the store, whose last "
    "step's suffix is used. Item ids stay the unsuffixed ones, so `rulebench report BASE "
    "SUFFIXED` pairs the runs.",
    show_default=False,
)
OPTIONS = (
    _option("suites", "--suite", "-s", default_of=ScenarioConfig, kind=list[str] | None),
    _option("scenarios", "--scenario", kind=list[str] | None),
    _option("full"),
    _option("per_group", default_of=ScenarioConfig),
    keyword(
        "per_behavior",
        Annotated[
            int | None, typer.Option(hidden=True, **field_bounds(ScenarioOptions, "per_group"))
        ],
        None,
    ),
    _option("placement", default_of=Protocol),
    _option("no_reminders"),
    _option("system_message"),
    _option("preset"),
    _option("mode", default_of=Protocol),
    _option("version", default_of=ScenarioConfig),
    _option("repeats", default_of=ScenarioConfig),
    keyword("suffix", Annotated[str | None, SUFFIX_OPTION], None),
    _option("suffix_on", default_of=ScenarioConfig),
    keyword("prompts", PromptsOption, None),
    keyword("upstream", UpstreamOption, None),
    _option("judge_reasoning"),
)
"""The command's own options in --help order; each but --suffix and the old --per-behavior
fills the `ScenarioOptions` field of its name."""


@opt.run_command()
@with_options(given=OptionBlock(OPTIONS, lambda values: opt.given_only(**values)))
def scenarios(run: opt.RunOptions, given: dict[str, Any]) -> None:
    """Rule-obeying scenarios: the RuLES v3 games and security scenarios, one reply per user turn.

    Default: the quick size of our generated basic suite (--per-group cases per
    behavior, short replies), instructions in the first user message with
    reminders, compat evaluation. --full runs the official sizes with room for
    longer replies. Files of cases (-s FILE) run whole, and cases saved by `play`
    or the playground replay with the settings they were played with, unless an
    option says otherwise.
    """
    from rulebench.attack.suffixes import load_suffix
    from rulebench.scenarios.run_options import prepare_scenarios

    old = given.pop("per_behavior", None)
    count = pick_renamed(given.pop("per_group", None), old, new="--per-group", old="--per-behavior")
    suffix = given.pop("suffix", None)
    loaded = load_suffix(suffix, run.store) if suffix is not None else None
    found = {"suffix": loaded.text, "suffix_source": loaded.source} if loaded else {}
    options = ScenarioOptions(**given, **found, per_group=count, seed=run.seed)
    prepared = prepare_scenarios(options, run.max_tokens, run.temperature, option_name)
    for warning in prepared.warnings:
        err.print(safe_text(warning, style="yellow"), highlight=False)
    err.print(safe_text(prepared.run_line), highlight=False)
    run_task("scenarios", prepared.config, run._replace(max_tokens=prepared.max_tokens))
