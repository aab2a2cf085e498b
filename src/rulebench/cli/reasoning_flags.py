"""The reasoning options every run command takes: the thinking switch, effort and think tags."""

from typing import Annotated, Literal, get_args

import typer
from pydantic import ValidationError

from rulebench.core.errors import ConfigError
from rulebench.core.messages import DEFAULT_TAGS, ReasoningEffort, ReasoningOptions, ReasoningTags

Switch = Literal["on", "off"]

ThinkingOption = Annotated[
    Switch | None,
    typer.Option(
        "--thinking",
        help="on or off: a reasoning model's thinking, through its chat template's "
        "enable_thinking (Qwen3, DeepSeek...), sent to servers as chat_template_kwargs and "
        "given to local chat templates. Default: the model's own.",
        show_default=False,
    ),
]
ReasoningEffortOption = Annotated[
    str | None,
    typer.Option(
        "--reasoning-effort",
        metavar="<effort>",
        help=f"{', '.join(get_args(ReasoningEffort))}: sent as reasoning_effort (OpenAI's "
        "reasoning models, gpt-oss on vLLM). Default: not sent.",
        show_default=False,
    ),
]
ReasoningTagsOption = Annotated[
    str | None,
    typer.Option(
        "--reasoning-tags",
        metavar="<tags>",
        help="'START END': the tags a model's thinking is written between in its reply, split "
        f"off before scoring (Magistral: '\\[THINK] \\[/THINK]'). Default: '{DEFAULT_TAGS.start} "
        f"{DEFAULT_TAGS.end}'.",
        show_default=False,
    ),
]


def parse_reasoning_tags(text: str) -> ReasoningTags:
    """'<START> <END>' as the tags; one line naming the option when it is not two words."""
    words = text.split()
    if len(words) != 2:
        raise ConfigError(
            f"--reasoning-tags {text!r}: give the opening and the closing tag, separated by a "
            f"space, e.g. --reasoning-tags '{DEFAULT_TAGS.start} {DEFAULT_TAGS.end}'"
        )
    try:
        return ReasoningTags(start=words[0], end=words[1])
    except ValidationError as exc:
        raise ConfigError(f"--reasoning-tags {text!r}: {exc.errors()[0]['msg']}") from None


def reasoning_options(
    thinking: Switch | None, effort: str | None, tags: str | None
) -> ReasoningOptions:
    """The flags as one `ReasoningOptions`; a bad effort or tags is one line naming the flag."""
    known = get_args(ReasoningEffort)
    if effort is not None and effort not in known:
        raise ConfigError(f"--reasoning-effort {effort!r}: choose one of {', '.join(known)}")
    return ReasoningOptions.model_validate(
        {
            "thinking": None if thinking is None else thinking == "on",
            "effort": effort,
            "tags": DEFAULT_TAGS if tags is None else parse_reasoning_tags(tags),
        }
    )
