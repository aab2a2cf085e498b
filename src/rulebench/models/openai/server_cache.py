"""The prompt tokens a server says it took from its own prefix cache, summed over a run.

Affinity routing and the grouped order exist to make the server recompute less (issue 41);
only the server knows how much it did. Two reports are read:

- llama.cpp's server adds `timings` to each reply: `prompt_n` prompt tokens evaluated and
  `cache_n` taken from the slot's cache.
- vLLM (with `--enable-prompt-tokens-details`), SGLang and OpenAI put the cached share in
  `usage.prompt_tokens_details.cached_tokens`.

The sums go into the run's notes, never into a stored result: what a server cached depends on
what it served before, so it must not make two runs of the same items differ.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple


class CacheReport(NamedTuple):
    """One reply's account of its prompt: tokens from the server's cache, tokens evaluated."""

    cached: int
    evaluated: int | None
    """Only llama.cpp says it; elsewhere it is the prompt tokens less the cached ones."""
    source: str


def _count(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) and value >= 0 else None


def read_cache_report(data: Mapping[str, object]) -> CacheReport | None:
    """The server's cache figures in a parsed reply body, or None when it sends none."""
    timings = data.get("timings")
    if isinstance(timings, dict):
        cached, evaluated = _count(timings.get("cache_n")), _count(timings.get("prompt_n"))
        if evaluated is not None:
            return CacheReport(cached or 0, evaluated, "llama.cpp timings")
    usage = data.get("usage")
    details = usage.get("prompt_tokens_details") if isinstance(usage, dict) else None
    cached = _count(details.get("cached_tokens")) if isinstance(details, dict) else None
    if cached is None:
        return None
    return CacheReport(cached, None, "usage.prompt_tokens_details")


@dataclass
class ServerCacheTally:
    """Sums of the replies' cache reports (the backend adds each reply; tests read it)."""

    replies: int = 0
    reported: int = 0
    prompt_tokens: int = 0
    """Prompt tokens of the replies that reported, as their usage counts them."""
    cached: int = 0
    evaluated: int = 0
    source: str = ""

    def add(self, prompt_tokens: int, report: CacheReport | None) -> None:
        """Count one reply of `prompt_tokens` and its report, if it sent one."""
        self.replies += 1
        if report is None:
            return
        self.reported += 1
        self.prompt_tokens += prompt_tokens
        self.cached += report.cached
        missing = max(0, prompt_tokens - report.cached)
        self.evaluated += missing if report.evaluated is None else report.evaluated
        self.source = report.source

    @property
    def notes(self) -> tuple[str, ...]:
        """One line for the run's notes, when any reply reported its cache."""
        if not self.reported:
            return ()
        share = self.cached / self.prompt_tokens if self.prompt_tokens else 0.0
        return (
            f"server prompt cache: {self.cached:,} of {self.prompt_tokens:,} prompt tokens "
            f"({share:.1%}) came from the server's cache, {self.evaluated:,} were evaluated "
            f"({self.source}, {self.reported:,} of {self.replies:,} replies)",
        )
