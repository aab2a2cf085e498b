"""A replica's prompt cache as the mock server keeps it, to report what a real server reports.

A llama.cpp server keeps each slot's last prompt and evaluates only what a new prompt does not
share with the slot it lands in; vLLM keeps blocks of any earlier prompt. Here a replica holds
the last `slots` prompts (their content words, the mock's tokens), and a prompt's cached tokens
are its longest shared beginning with one of them, which it then replaces: enough to tell
routing that keeps a conversation on one replica from routing that scatters it.
"""

from collections.abc import Sequence
from typing import Any, Literal

CacheReportStyle = Literal["off", "timings", "usage"]
"""How replies report the cache: not at all, as llama.cpp (`timings.cache_n`, `prompt_n`), or
as vLLM and OpenAI (`usage.prompt_tokens_details.cached_tokens`)."""


def prompt_words(body: dict[str, Any]) -> list[str]:
    """The mock's prompt tokens of a chat body: the words of every message, in order."""
    return [word for m in body["messages"] for word in str(m.get("content") or "").split()]


def _shared(first: Sequence[str], second: Sequence[str]) -> int:
    count = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        count += 1
    return count


class MockPrefixCache:
    """The last prompts one replica computed, oldest first."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self._held: list[list[str]] = []

    def serve(self, words: list[str]) -> int:
        """Compute a prompt: the tokens it found cached; it then takes the slot it matched."""
        shared = [_shared(words, held) for held in self._held]
        best = max(range(len(shared)), key=shared.__getitem__, default=None)
        if best is not None and shared[best] > 0:
            self._held.pop(best)
        elif len(self._held) >= self.slots:
            self._held.pop(0)
        self._held.append(words)
        return 0 if best is None else shared[best]


def cache_fields(style: CacheReportStyle, prompt_tokens: int, cached: int) -> dict[str, Any]:
    """The reply's fields that report `cached` of `prompt_tokens`, in the server's own style."""
    if style == "timings":
        return {"timings": {"cache_n": cached, "prompt_n": prompt_tokens - cached}}
    if style == "usage":
        return {"usage": {"prompt_tokens_details": {"cached_tokens": cached}}}
    return {}
