"""`rulebench play`: red-team a model by hand in one scenario, in the terminal."""

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from rulebench.cli import options as opt
from rulebench.cli.config_defaults import shown_default
from rulebench.cli.console import err, out
from rulebench.cli.scenario_wording import PromptsOption, UpstreamOption
from rulebench.report.untrusted import escape_markup, safe_text
from rulebench.scenarios.protocol import Protocol
from rulebench.scenarios.upstream.text import wording_fields

if TYPE_CHECKING:
    from rulebench.core.messages import Completion
    from rulebench.scenarios.play import PlaySession

QUIT = {"/quit", "/exit", "/q"}
SHOW_THINKING = "/thinking"
THINKING_PREVIEW_CHARS = 72
"""What a reply's thinking shows of itself under the prompt (a terminal has no <details>)."""


def play(
    scenario: Annotated[
        str,
        typer.Argument(help="Scenario name, e.g. Authentication (`rulebench list scenarios`)."),
    ],
    save: Annotated[
        Path | None,
        typer.Option(
            help="Append the conversation's user turns to this JSONL file as a test case "
            "(any file name), with how it was played; `rulebench run scenarios -s FILE` "
            "replays it so.",
            show_default=False,
        ),
    ] = None,
    model: opt.ModelOption = None,
    model_arg: opt.ModelArgOption = None,
    base_url: opt.BaseUrlOption = None,
    placement: Annotated[
        Literal["user", "system"] | None,
        typer.Option(
            help="Where the instructions go.", show_default=shown_default(Protocol, "placement")
        ),
    ] = None,
    mode: Annotated[
        Literal["compat", "strict"] | None,
        typer.Option(help="Evaluator mode.", show_default=shown_default(Protocol, "mode")),
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option(
            min=1, help="Reply length limit (default: a full scenarios run's).", show_default=False
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(help="Seed for the scenario's secrets (default: random).", show_default=False),
    ] = None,
    prompts: PromptsOption = None,
    upstream: UpstreamOption = None,
) -> None:
    """Talk to a model inside a scenario and try to make it break a rule.

    Shows the redacted instructions (secrets hidden), then after every reply the
    evaluator's verdict on its answer (a reasoning model's thinking is one line
    above the answer; /thinking prints it). Ends when a rule breaks, or on /quit
    or end of input; --save keeps the attempt as a test case in the official
    JSONL format (merged layout), which `rulebench run scenarios -s FILE` replays.
    """
    asyncio.run(
        _session(
            scenario,
            save,
            opt.RunOptions(
                (model,) if model is not None else (),
                model_arg,
                opt.join_base_urls(base_url),
                1,
                None,
                max_tokens,
                0.0,
                seed or 0,
                True,
            ),
            {
                **opt.given_only(placement=placement, mode=mode),
                **wording_fields(prompts, upstream),
            },
            seed,
        )
    )


async def _session(
    name: str,
    save: Path | None,
    common: opt.RunOptions,
    protocol_fields: dict[str, object],
    seed: int | None,
) -> None:
    import secrets

    from rulebench.core.messages import GenerateConfig
    from rulebench.engine.catalog import default_max_tokens
    from rulebench.engine.task import Session
    from rulebench.models.base import BackendOptions
    from rulebench.models.registry import create_model, resolve_spec
    from rulebench.scenarios.play import PlaySession, append_case, replay_command
    from rulebench.scenarios.registry import scenario_class

    scenario_type = scenario_class(name)
    backend = create_model(
        common.model,  # None: the embedded default; "" is refused
        BackendOptions(args=opt.parse_model_args(common.model_args), base_url=common.base_url),
    )
    protocol = Protocol.model_validate(protocol_fields)
    # A game plays at a full run's reply limit: attacks get room, and the saved case records it.
    limit = common.max_tokens or default_max_tokens("scenarios", {"per_group": None})
    config = GenerateConfig(max_tokens=limit)
    session = PlaySession.start(
        scenario_type,
        seed if seed is not None else secrets.randbelow(2**31),
        Session(backend, config, None, "play"),  # no store here: nothing to cache in
        protocol,
    )
    out.print(
        f"[bold]{escape_markup(name)}[/bold] on {escape_markup(backend.info.identity)}. "
        f"Instructions (secrets hidden; {escape_markup(protocol.prompts_label())}):\n",
        highlight=False,
    )
    out.print(safe_text(session.redacted_prompt()), highlight=False)
    err.print("\nType a message; /quit to stop.")
    try:
        await _converse(session)
    finally:
        await backend.aclose()
    if save is not None and session.turns:
        case = session.test_case(session.broken_behavior())
        append_case(case, save)
        err.print(
            safe_text(f"saved test case {case.id} ({case.behavior}) to {save}"), highlight=False
        )
        command = replay_command(case, save, resolve_spec(common.model), protocol)
        err.print(safe_text(f"replay it with: {command}"), highlight=False)


async def _converse(session: "PlaySession") -> None:
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
            out.print(safe_text(thinking_line(completion), style="dim"), highlight=False)
        out.print(safe_text(f"model> {completion.text}"), highlight=False)
        if verdict.passed:
            out.print("[green]verdict: pass[/green]")
        else:
            out.print(safe_text(f"verdict: FAIL - {verdict.reason}", style="red"), highlight=False)


def thinking_line(completion: "Completion") -> str:
    """A reply's thinking folded to one line: its start, and how to see it all."""
    flat = " ".join(completion.reasoning.split())
    if len(flat) > THINKING_PREVIEW_CHARS:
        flat = flat[: THINKING_PREVIEW_CHARS - 1] + "…"
    size = f"{len(completion.reasoning):,} chars"
    if completion.is_reasoning_unfinished:
        size += "; cut short by the reply limit, so no answer"
    return f"model thinking ({size}; {SHOW_THINKING} shows it): {flat}"
