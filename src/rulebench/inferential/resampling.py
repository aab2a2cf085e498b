"""Asking an item again while its reply lacks upstream's answer line (RuleBench's vLLM path).

Upstream's vLLM client re-asks a ulogic (and ulogic-cf) or theoremQA prompt while its answer
pattern finds nothing in the reply: up to 5 requests in all, the later ones at temperature 0.5
and top_p 1, and the last reply is the one scored. The paper's open-model numbers were made
this way, so a single greedy request scores weak models lower than upstream would. Its GPT
client makes one request. The attempts are of one item: its id, its result and its count in
every summary stay one; the details record each attempt's sampling.
"""

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, JsonValue

from rulebench.core.items import content_hash
from rulebench.core.messages import Completion, GenerateConfig, Message
from rulebench.engine.task import Session, with_repeat_seed

Resample = Literal["off", "upstream"]
"""off: one request per item; upstream: re-ask as upstream's vLLM client does."""

MAX_ATTEMPTS = 5
"""Requests per item in all, the first included (upstream stops after its fifth try)."""
RESAMPLE_TEMPERATURE = 0.5
RESAMPLE_TOP_P = 1.0

_UNTIL_DOT = re.compile(r"Answer: (.*?)\.")
ANSWER_LINES: dict[str, re.Pattern[str]] = {
    "ulogic": _UNTIL_DOT,
    # upstream picks the pattern by the dataset name's first six letters: "ulogic-cf" too
    "ulogic-cf": _UNTIL_DOT,
    "theoremQA": re.compile(r"Answer: ([abcd])"),
}
"""The datasets upstream re-asks, each with the pattern that must find something in a reply
(searched anywhere, case-sensitive); every other dataset's first reply is kept."""


class Attempt(BaseModel):
    """One request of an item: how it was sampled, and whether the answer line was found."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: float
    top_p: float
    seed: int | None
    """The sampling seed the model was sent (each retry draws with its own)."""
    has_answer_line: bool


def is_resampled(task: str) -> bool:
    """Whether upstream re-asks this dataset's items."""
    return task in ANSWER_LINES


def resample_note(tasks: Sequence[str]) -> str | None:
    """What a run re-asking upstream's way does, for its run line and report header.

    None when none of `tasks` is re-asked: the option then changes no request.
    """
    asked = [task for task in tasks if is_resampled(task)]
    if not asked:
        return None
    return (
        f"re-asked while a reply lacks upstream's answer line: {', '.join(asked)} (up to "
        f"{MAX_ATTEMPTS} requests, retries at temperature {RESAMPLE_TEMPERATURE}; "
        "--resample upstream)"
    )


def has_answer_line(task: str, reply: str) -> bool:
    """Whether upstream's pattern for the dataset finds an answer in the reply."""
    return ANSWER_LINES[task].search(reply) is not None


def retry_config(config: GenerateConfig, attempt: int) -> GenerateConfig:
    """The sampling of a retry (`attempt` from 2): upstream's temperature, a seed of its own.

    Derived from the first request's seed, so a rerun asks (and the cache keys) the same
    draws, while each retry of an item is a different one.
    """
    base = 0 if config.seed is None else config.seed
    seed = int(content_hash(["resample-seed", base, attempt]), 16) % 2**31
    update = {"temperature": RESAMPLE_TEMPERATURE, "top_p": RESAMPLE_TOP_P, "seed": seed}
    return config.model_copy(update=update)


async def generate_until_answered(
    session: Session, messages: Sequence[Message], task: str, repeat: int
) -> tuple[Completion, tuple[Attempt, ...]]:
    """The reply to score (the last one asked) and every attempt, at most `MAX_ATTEMPTS`.

    The first request uses the run's sampling, as without re-asking; `repeat` is the item's,
    which the session mixes into every seed it sends.
    """
    attempts: list[Attempt] = []
    sent = session.config  # the session's own config already carries the repeat's seed
    completion = await session.generate(messages)
    while True:
        found = has_answer_line(task, completion.text)
        attempts.append(
            Attempt(
                temperature=sent.temperature,
                top_p=sent.top_p,
                seed=sent.seed,
                has_answer_line=found,
            )
        )
        if found or len(attempts) == MAX_ATTEMPTS:
            return completion, tuple(attempts)
        asked = retry_config(session.config, len(attempts) + 1)
        # a config passed to the session gets the repeat's seed mixed in there
        sent = with_repeat_seed(asked, repeat) if repeat else asked
        completion = await session.generate(messages, asked)


def attempt_details(attempts: tuple[Attempt, ...]) -> dict[str, JsonValue]:
    """What an outcome records of the attempts: their count and each one's sampling."""
    return {
        "asks": len(attempts),
        "ask_temperatures": [a.temperature for a in attempts],
        "ask_seeds": [a.seed for a in attempts],
        "has_answer_line": attempts[-1].has_answer_line,
    }
