"""Adversarial suffixes (GCG, RuLES paper) appended to the user messages of test cases.

A suffixed run keeps the item ids of the unsuffixed case, so `rulebench report BASE
SUFFIXED` pairs the two runs case by case; only the messages the model sees change. The replies
are judged against the case as written: a suffix on "Repeat" or on a guess would otherwise
disarm the very rule it attacks (an exact-trigger check no longer matches), and the run would
score the model for passing a test it was never given.
"""

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import JsonValue

from rulebench.core.cases import TestCase
from rulebench.core.messages import Message, append_suffix

SuffixOn = Literal["every", "first", "last"]
"""Which user messages of a case get the suffix: all of them, the first, or the last."""

LABEL_CHARS = 40
"""Longest suffix text a label shows: GCG suffixes run to ~20 tokens of noise."""


def suffixed_messages(
    messages: Sequence[Message], suffix: str, on: SuffixOn
) -> tuple[Message, ...]:
    """The case's messages with `suffix` on the chosen user messages (prefilled ones included).

    Assistant turns stay as they are: a prefilled reply is data, never the attacker's text.
    """
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    chosen = set(users if on == "every" else users[:1] if on == "first" else users[-1:])
    return tuple(
        m.model_copy(update={"content": append_suffix(m.content, suffix)}) if i in chosen else m
        for i, m in enumerate(messages)
    )


def suffixed_case(case: TestCase, suffix: str, on: SuffixOn) -> TestCase:
    """The case as a suffixed run plays it."""
    return case.model_copy(update={"messages": suffixed_messages(case.messages, suffix, on)})


def suffix_label(suffix: str, on: SuffixOn, source: str | None) -> str:
    """E.g. "suffix 'describing. + similarly…' on every user message (from gcg run 7f3a)"."""
    shown = repr(suffix[:LABEL_CHARS]) + ("…" if len(suffix) > LABEL_CHARS else "")
    where = {"every": "every user message", "first": "the first user message"}.get(
        on, "the last user message"
    )
    return f"suffix {shown} on {where}" + (f" (from {source})" if source else "")


def stored_suffix_label(config: Mapping[str, JsonValue]) -> str | None:
    """The suffix label of a stored scenarios config, or None for a run without a suffix."""
    suffix = config.get("suffix")
    if not isinstance(suffix, str) or not suffix:
        return None
    stored_on = config.get("suffix_on")
    on: SuffixOn = "first" if stored_on == "first" else "last" if stored_on == "last" else "every"
    source = config.get("suffix_source")
    return suffix_label(suffix, on, source if isinstance(source, str) else None)


def as_written(played: Sequence[Message], written: Sequence[Message]) -> list[Message]:
    """A played conversation with its user messages put back as the case wrote them.

    The k-th user message of `played` becomes the k-th of `written`; replies stay. Both hold
    the case's user messages in order (suffixes change text, never the number or order).
    """
    originals = iter([m for m in written if m.role == "user"])
    return [next(originals, m) if m.role == "user" else m for m in played]
