"""`rulebench play`: red-team a model by hand in one scenario, in the terminal."""

import asyncio
import inspect
from typing import TYPE_CHECKING, Annotated, Any

import typer

from rulebench.cli import options as opt
from rulebench.cli.console import err, out
from rulebench.cli.field_options import field_option
from rulebench.cli.option_stack import OptionBlock, keyword, with_options
from rulebench.cli.scenario_wording import PromptsOption, UpstreamOption
from rulebench.core.field_defaults import shown_default
from rulebench.engine.run_flags import join_base_urls, parse_model_args
from rulebench.report.untrusted import escape_markup, safe_text
from rulebench.scenarios.play_options import PlayOptions
from rulebench.scenarios.protocol import Protocol

if TYPE_CHECKING:
    from rulebench.scenarios.play import PlaySession

QUIT = {"/quit", "/exit", "/q"}
SHOW_THINKING = "/thinking"


def _option(field: str, shown: str | bool = False) -> inspect.Parameter:
    """The option filling `PlayOptions.field` (its docstring is the help)."""
    annotation = PlayOptions.model_fields[field].annotation
    return keyword(
        field, Annotated[annotation, field_option(PlayOptions, field, shown=shown)], None
    )


OPTIONS = (
    _option("save"),
    keyword("model", opt.ModelOption, None),
    keyword("model_arg", opt.ModelArgOption, None),
    keyword("base_url", opt.BaseUrlOption, None),
    _option("placement", shown_default(Protocol, "placement")),
    _option("mode", shown_default(Protocol, "mode")),
    _option("max_tokens"),
    _option("seed"),
    keyword("prompts", PromptsOption, None),
    keyword("upstream", UpstreamOption, None),
)
"""The options in --help order, packed into one `PlayOptions`."""


def _pack(values: dict[str, Any]) -> PlayOptions:
    """The options' values as `PlayOptions` (-M and --base-url parsed as `run` parses them)."""
    model_args = parse_model_args(values.pop("model_arg"))
    base_url = join_base_urls(values.pop("base_url"))
    return PlayOptions(**values, model_args=model_args, base_url=base_url)


@with_options(options=OptionBlock(OPTIONS, _pack))
def play(
    scenario: Annotated[
        str,
        typer.Argument(help="Scenario name, e.g. Authentication (`rulebench list scenarios`)."),
    ],
    options: PlayOptions,
) -> None:
    """Talk to a model inside a scenario and try to make it break a rule.

    Shows the redacted instructions (secrets hidden), then after every reply the
    evaluator's verdict on its answer (a reasoning model's thinking is one line
    above the answer; /thinking prints it). Ends when a rule breaks, or on /quit
    or end of input; --save keeps the attempt as a test case in the official
    JSONL format (merged layout), which `rulebench run scenarios -s FILE` replays.
    """
    asyncio.run(_session(scenario, options, options.protocol()))


async def _session(name: str, options: PlayOptions, protocol: Protocol) -> None:
    from rulebench.scenarios.play_options import open_game, save_game

    game = open_game(name, options, protocol)
    backend = game.session.model
    out.print(
        f"[bold]{escape_markup(name)}[/bold] on {escape_markup(backend.info.identity)}. "
        f"Instructions (secrets hidden; {escape_markup(protocol.prompts_label())}):\n",
        highlight=False,
    )
    out.print(safe_text(game.redacted_prompt()), highlight=False)
    err.print("\nType a message; /quit to stop.")
    try:
        await _converse(game)
    finally:
        await backend.aclose()
    if options.save is not None and game.turns:
        for line in save_game(game, options.save, options.model):
            err.print(safe_text(line), highlight=False)


async def _converse(session: "PlaySession") -> None:
    from rulebench.scenarios.play_options import thinking_line

    loop = asyncio.get_running_loop()
    thinking = ""
    while session.verdict.passed:
        try:
            text = await loop.run_in_executor(None, input, "you> ")
        except EOFError:
            return
        if text.strip() in QUIT:
            return
        if text.strip() == SHOW_THINKING:
            shown = thinking or "(the last reply had no thinking)"
            out.print(safe_text(shown, style="dim"), highlight=False)
            continue
        if problem := session.problem_with(text):
            err.print(safe_text(problem, style="yellow"))
            continue
        completion, verdict = await session.send(text)
        thinking = completion.reasoning
        # The reply is outside text: a control sequence in it must not reach the terminal.
        if completion.reasoning or completion.is_reasoning_unfinished:
            line = thinking_line(completion, SHOW_THINKING)
            out.print(safe_text(line, style="dim"), highlight=False)
        out.print(safe_text(f"model> {completion.text}"), highlight=False)
        if verdict.passed:
            out.print("[green]verdict: pass[/green]")
        else:
            out.print(safe_text(f"verdict: FAIL - {verdict.reason}", style="red"), highlight=False)
