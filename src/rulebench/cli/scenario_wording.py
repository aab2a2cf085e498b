"""`--prompts` and `--upstream` for the commands that play RuLES scenarios (run, play, judge).

The option names are the ones `run inferential` uses; the default wording lives in the
typed config (`Protocol.prompts`), so an option left out is None here.
"""

from pathlib import Path
from typing import Annotated, Literal

import typer

from rulebench.core.wording import Prompts

PromptsOption = Annotated[
    Literal["rulebench", "upstream"] | None,
    typer.Option(
        "--prompts",
        help="Whose instruction text: rulebench's own wording (default) or RuLES's v3 text, "
        "read from your clone (--upstream; `run scenarios` also finds the clone holding "
        "--suite's data); only upstream's text makes numbers comparable with the published "
        "ones.",
        show_default=False,
    ),
]
UpstreamOption = Annotated[
    Path | None,
    typer.Option(
        "--upstream",
        metavar="PATH",
        help="Your clone of normster/llm_rules (or of the lm-evaluation-harness fork that "
        "vendors it): its root, the folder holding scenarios/, or scenarios/ itself. Read only "
        "with --prompts upstream; its commit is recorded with the run.",
        show_default=False,
    ),
]


def wording_fields(
    prompts: str | None, upstream: Path | None, suites: tuple[str, ...] = ()
) -> dict[str, object]:
    """The protocol fields for the options given (empty: the config's default wording)."""
    from rulebench.scenarios.upstream.text import resolve_wording

    if prompts is None and upstream is None:
        return {}
    chosen: Prompts = "upstream" if prompts == "upstream" else "rulebench"
    return {"prompts": chosen, "upstream": resolve_wording(chosen, upstream, suites)}


NOT_COMPARABLE = (
    "warning: --preset published-v3 with rulebench's own instruction text: the numbers are not "
    "comparable with the published v3 table, whose models got RuLES's own text (add --prompts "
    "upstream --upstream PATH to your clone of normster/llm_rules)"
)
"""Printed when the published setup runs with our wording."""
