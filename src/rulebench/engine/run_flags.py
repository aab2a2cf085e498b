"""Run settings as a front end spells them (key=value pairs, repeated URLs, words for switches).

The command line, the playground and `train star` take these spellings; the functions here
turn them into `RunSettings`' values, so a bad one is the same one line whichever took it.
`ReasoningFlags`' field docstrings are the help of the three reasoning options.
"""

from collections.abc import Iterable, Mapping
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rulebench.core.errors import ConfigError
from rulebench.core.messages import DEFAULT_TAGS, ReasoningEffort, ReasoningOptions, ReasoningTags
from rulebench.core.shards import parse_shard
from rulebench.engine.dispatch_order import DispatchOrder
from rulebench.engine.run_settings import RunSettings

Switch = Literal["on", "off"]


class ReasoningFlags(BaseModel):
    """`RunSettings.reasoning` as three options: each None when not given (the model's own)."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    thinking: Switch | None = None
    """on or off: a reasoning model's thinking, through its chat template's enable_thinking
    (Qwen3, DeepSeek...), sent to servers as chat_template_kwargs and given to local chat
    templates. Default: the model's own."""
    reasoning_effort: str | None = Field(
        default=None,
        description=f"{', '.join(get_args(ReasoningEffort))}: sent as reasoning_effort (OpenAI's "
        "reasoning models, gpt-oss on vLLM). Default: not sent.",
    )
    reasoning_tags: str | None = Field(
        default=None,
        description="'START END': the tags a model's thinking is written between in its reply, "
        "split off before scoring (Magistral: '\\[THINK] \\[/THINK]'). Default: "
        f"'{DEFAULT_TAGS.start} {DEFAULT_TAGS.end}'.",
    )


class SpelledSettings(BaseModel):
    """The run settings as a run command takes them, read into `RunSettings` by `settings`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model_args: list[str] | None = None
    """-M key=value pairs (`parse_model_args`)."""
    base_url: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    seed: int = 0
    """The data seed, which sampling follows unless `sampling_seed` tells them apart."""
    sampling_seed: int | None = None
    concurrency: int | None = None
    limit: int | None = None
    use_cache: bool = True
    """Read and write the response cache (`--no-cache`: False), as `RunSettings` spells it."""
    shard: str | None = None
    """As --shard gives it: "I/N", "auto" or "auto/N" (`core.shards.parse_shard`)."""
    reasoning: ReasoningFlags = ReasoningFlags()
    order: DispatchOrder | None = None
    """`--order`; None: the tasks' order (`RunSettings.order`)."""

    def settings(self, env: Mapping[str, str]) -> RunSettings:
        """The library's run settings; `env` is the process's, where an "auto" shard reads it."""
        flags = self.reasoning
        return RunSettings(
            model_args=parse_model_args(self.model_args),
            base_url=self.base_url,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            sampling_seed=self.seed if self.sampling_seed is None else self.sampling_seed,
            concurrency=self.concurrency,
            limit=self.limit,
            use_cache=self.use_cache,
            shard=None if self.shard is None else parse_shard(self.shard, env),
            reasoning=reasoning_options(
                flags.thinking, flags.reasoning_effort, flags.reasoning_tags
            ),
            order=self.order or "given",
        )


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


def join_base_urls(values: Iterable[str] | None) -> str | None:
    """One `base_url` string from repeated --base-url values, comma-joined (None if none).

    A value may itself be a comma list: the backend splits the whole at each comma that starts
    another URL (a password may hold a comma). An empty value is refused rather than read as
    "no URL", which would silently fall back to the environment's.
    """
    urls = [value.strip() for value in values or ()]
    if any(not url for url in urls):
        raise ConfigError("--base-url: an empty value (give a URL, or leave the option out)")
    return ",".join(urls) if urls else None


def parse_model_args(pairs: Iterable[str] | None) -> dict[str, str]:
    """Turn repeated key=value options into a dict, naming a malformed one."""
    args: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--model-arg '{pair}' is not key=value")
        args[key.strip()] = value
    return args
