"""How a game of `rulebench play` starts, is saved and shows a reply's thinking.

The terminal's options are declared here, with their help; it and the playground (`rulebench
serve`) start games at the same reply limit (`play.play_reply_limit`).
"""

import secrets
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from rulebench.core.messages import Completion, GenerateConfig
from rulebench.core.wording import Prompts
from rulebench.engine.task import Session
from rulebench.models.base import BackendOptions
from rulebench.models.registry import create_model, resolve_spec
from rulebench.scenarios.base import EvalMode
from rulebench.scenarios.play import PlaySession, append_case, play_reply_limit, replay_command
from rulebench.scenarios.protocol import Placement, Protocol
from rulebench.scenarios.registry import scenario_class
from rulebench.scenarios.upstream.text import wording_fields

THINKING_PREVIEW_CHARS = 72
"""What a reply's thinking shows of itself on one line (a terminal has no <details>)."""


class PlayOptions(BaseModel):
    """The options of `rulebench play`, None when not given (each docstring is its help)."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    model: str | None = None
    """The model's spec (None: the embedded default; "" is refused)."""
    model_args: dict[str, str] = Field(default_factory=dict)
    """Backend settings, as `-M key=value` gives them."""
    base_url: str | None = None
    """An OpenAI-compatible server's endpoint(s), comma-separated."""
    save: Path | None = None
    """Append the conversation's user turns to this JSONL file as a test case (any file name),
    with how it was played; `rulebench run scenarios -s FILE` replays it so."""
    placement: Placement | None = None
    """Where the instructions go."""
    mode: EvalMode | None = None
    """Evaluator mode."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Reply length limit (default: a full scenarios run's)."""
    seed: int | None = None
    """Seed for the scenario's secrets (default: random)."""
    prompts: Prompts | None = None
    """Whose instruction text (`ScenarioOptions.prompts`)."""
    upstream: Path | None = None
    """Your clone of RuLES, for `prompts` upstream (`ScenarioOptions.upstream`)."""

    def protocol(self) -> Protocol:
        """The game's protocol: the options given over the defaults (the clone read once)."""
        given = {"placement": self.placement, "mode": self.mode}
        return Protocol.model_validate(
            {
                **{name: value for name, value in given.items() if value is not None},
                **wording_fields(self.prompts, self.upstream),
            }
        )


def open_game(name: str, options: PlayOptions, protocol: Protocol) -> PlaySession:
    """A game of scenario `name` on the options' model, its secrets from their seed.

    No seed: one drawn at random. The session has no store: play caches nothing. The caller
    closes the model (`game.session.model.aclose()`).
    """
    scenario = scenario_class(name)
    backend = BackendOptions(args=options.model_args, base_url=options.base_url)
    model = create_model(options.model, backend)  # None: the embedded default; "" is refused
    seed = options.seed if options.seed is not None else secrets.randbelow(2**31)
    config = GenerateConfig(max_tokens=play_reply_limit(options.max_tokens))
    return PlaySession.start(scenario, seed, Session(model, config, None, "play"), protocol)


def save_game(game: PlaySession, path: Path, model: str | None) -> tuple[str, str]:
    """Append the game to `path` as a test case; say so, and how to replay it.

    Args:
        game: the game played.
        path: the JSONL file of cases.
        model: the model's spec as given (None: the embedded default).

    Returns:
        The two lines to print: where the case went, and the command that replays it.
    """
    case = game.test_case(game.broken_behavior())
    append_case(case, path)
    command = replay_command(case, path, resolve_spec(model), game.protocol)
    return f"saved test case {case.id} ({case.behavior}) to {path}", f"replay it with: {command}"


def thinking_line(completion: Completion, show: str) -> str:
    """A reply's thinking folded to one line: its start, and `show` (the command to see it all)."""
    flat = " ".join(completion.reasoning.split())
    if len(flat) > THINKING_PREVIEW_CHARS:
        flat = flat[: THINKING_PREVIEW_CHARS - 1] + "…"
    size = f"{len(completion.reasoning):,} chars"
    if completion.is_reasoning_unfinished:
        size += "; cut short by the reply limit, so no answer"
    return f"model thinking ({size}; {show} shows it): {flat}"
