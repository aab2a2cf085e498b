"""Which fault the mock OpenAI server injects into a request: markers, attempt counts, chaos.

The marker syntax is documented in `rulebench.testing.mock_server`, where tests look for it.
Kept apart from the server so the decision is a plain function of the conversation and its
attempt number, testable without HTTP.
"""

import hashlib
import json
import random
import re
from collections import Counter
from typing import Any, Literal, get_args

FaultKind = Literal[
    "500",
    "502",
    "503",
    "429",
    "429r0",
    "400",
    "404",
    "slow",
    "malformed",
    "malformedkey",
    "drop",
    "nochoices",
    "surrogate",
    "badutf8",
    "huge",
    "hugestream",
]
FAULT_KINDS: tuple[FaultKind, ...] = get_args(FaultKind)
CHAOS_FAULT_KINDS: tuple[FaultKind, ...] = (
    "500",
    "502",
    "503",
    "429r0",
    "malformed",
    "drop",
    "nochoices",
)
"""Default kinds of chaos mode: those a client recovers from without waiting (no `slow`, no
one-second 429) and that are worth retrying (no 400)."""

_MARKER = re.compile(r"\[\[fault:([^\]]*)\]\]")
_COUNTED = re.compile(r"(.+?)x(\d+)")


def parse_fault(text: str) -> tuple[str, int | None] | None:
    """Find a fault marker in a message: (kind, count or None for always), or None.

    Raises:
        ValueError: the marker names an unknown kind.
    """
    if "[[fault:" not in text:  # the common case, without a regex
        return None
    match = _MARKER.search(text)
    if match is None:
        return None
    spec = match.group(1).strip()
    counted = _COUNTED.fullmatch(spec)
    kind, count = (counted.group(1), int(counted.group(2))) if counted else (spec, None)
    if kind not in FAULT_KINDS:
        raise ValueError(
            f"unknown fault kind '{kind}' in [[fault:{spec}]]; known: {', '.join(FAULT_KINDS)}"
        )
    return kind, count


def conversation_key(messages: Any) -> str:
    """Hash a conversation's messages JSON, to count the attempts made for it."""
    canonical = json.dumps(messages, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


class FaultPlan:
    """Counts attempts per conversation and decides each request's fault.

    A marker in the last message wins; otherwise chaos mode draws with probability `rate`
    from a Random seeded by (seed, conversation, attempt), so a conversation fails on the same
    attempts whatever order requests arrive in.
    """

    def __init__(
        self, rate: float = 0.0, seed: int = 0, kinds: tuple[str, ...] = CHAOS_FAULT_KINDS
    ) -> None:
        self.rate = rate
        self.seed = seed
        self.kinds = kinds
        self.attempts: Counter[str] = Counter()

    def choose(self, messages: list[dict[str, Any]]) -> tuple[str | None, int]:
        """Return (fault kind or None, attempt number) for a request carrying `messages`.

        Raises:
            ValueError: the marker names an unknown kind.
        """
        key = conversation_key(messages)
        self.attempts[key] += 1
        attempt = self.attempts[key]
        marker = parse_fault(str(messages[-1].get("content") or "")) if messages else None
        if marker is not None:
            kind, count = marker
            return (kind if count is None or attempt <= count else None), attempt
        if self.rate:
            rng = random.Random(f"{self.seed}:{key}:{attempt}")
            if rng.random() < self.rate:
                return rng.choice(self.kinds), attempt
        return None, attempt
