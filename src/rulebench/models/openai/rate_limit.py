"""Client-side rate limits: requests and tokens per minute, kept before a server answers 429.

API tiers cap both per minute. A sliding log of the recent requests (when, how many tokens)
admits a request only when neither cap would be passed over the 60 s plus a margin that end with
it. The margin (`margin_s`) absorbs what lies between our admission and the server's count: the
time to hand the request to a connection and the network, and clock skew. Two requests that
would together pass a cap are thus always more than 60 s + margin apart, so no 60 s window the
server may place, closed at both ends, holds more than the caps. (A token bucket
such as aiolimiter's lets a full bucket burst past a cap within one window, handles one quantity
only, and cannot take back tokens once a reply says fewer were used; hence our own.)

Tokens are counted as providers count them when they admit a request: an estimate of the
prompt plus the whole max_tokens. Once the reply's usage is known the entry is raised to it if
larger (`settle`) but never lowered: a server that counts its estimate on arrival does not give
back what the reply left unused, so freeing it would let the next minute's requests past its cap.
"""

import logging
import math
from collections import deque
from collections.abc import Sequence

from rulebench.core.messages import Message
from rulebench.models.clock import REAL_CLOCK, Clock
from rulebench.models.openai.config import OpenAIConfig

logger = logging.getLogger(__name__)

WINDOW_S = 60.0
"""The span both limits count over."""
DEFAULT_MARGIN_S = 1.0
"""Added to WINDOW_S on our side: send delay and clock skew between client and server."""
_POLL_S = 0.5
"""Longest wait before a waiting request looks again: a settled reply may have freed tokens."""
_MIN_WAIT_S = 0.001
CHARS_PER_TOKEN = 4
"""The usual rough figure for English text with BPE tokenizers (OpenAI's own rule of thumb)."""


def estimate_tokens(messages: Sequence[Message], max_tokens: int) -> int:
    """A request's tokens before it is sent: message characters / 4, rounded up, plus max_tokens."""
    chars = sum(len(message.content) for message in messages)
    return math.ceil(chars / CHARS_PER_TOKEN) + max_tokens


class Ticket:
    """One admitted request in the log: when, and how many tokens it counts for."""

    __slots__ = ("at", "is_live", "tokens")

    def __init__(self, at: float, tokens: int) -> None:
        self.at = at
        self.tokens = tokens
        self.is_live = True
        """False once the entry has left the window (a late settle then changes nothing)."""


class RateLimiter:
    """Admits requests under a requests-per-minute and a tokens-per-minute cap (either optional).

    Waiting requests are not served in order: each looks again when the log's oldest entries
    expire, or every half second; under one cap and requests of similar size that is fair enough.
    """

    def __init__(
        self,
        requests_per_minute: int | None = None,
        tokens_per_minute: int | None = None,
        clock: Clock = REAL_CLOCK,
        margin_s: float = DEFAULT_MARGIN_S,
    ) -> None:
        self.requests_per_minute = requests_per_minute
        self.tokens_per_minute = tokens_per_minute
        self.span_s = WINDOW_S + margin_s
        """How long an entry counts: a minute plus the margin."""
        self._clock = clock
        self._log: deque[Ticket] = deque()
        self._tokens = 0
        """Sum of the tokens of the tickets in `_log`."""

    async def acquire(self, tokens: int) -> Ticket:
        """Wait until a request of `tokens` fits in both caps, then record it.

        Raises:
            ValueError: `tokens` exceeds the tokens-per-minute cap: it would never fit.
        """
        if self.tokens_per_minute is not None and tokens > self.tokens_per_minute:
            raise ValueError(f"{tokens} tokens exceed the cap of {self.tokens_per_minute}")
        while True:
            now = self._clock.now()
            wait_s = self._wait_s(now, tokens)
            if wait_s <= 0:
                ticket = Ticket(now, tokens)
                self._log.append(ticket)
                self._tokens += tokens
                logger.debug("rate limit: admitted %d tokens at %.3f", tokens, now)
                return ticket
            # The floor keeps a wait of a float's rounding error from spinning in place.
            await self._clock.sleep(min(max(wait_s, _MIN_WAIT_S), _POLL_S))

    def settle(self, ticket: Ticket, tokens: int) -> None:
        """Raise an admitted request's tokens to what the reply says it used, if that is more."""
        if tokens <= ticket.tokens:
            return
        if ticket.is_live:
            self._tokens += tokens - ticket.tokens
        ticket.tokens = tokens

    def _wait_s(self, now: float, tokens: int) -> float:
        """0 when the request fits now, else how long until enough of the log expires."""
        log = self._log
        horizon = now - self.span_s
        # Strictly older: an entry exactly one span old still shares a closed window with now.
        while log and log[0].at < horizon:
            expired = log.popleft()
            expired.is_live = False
            self._tokens -= expired.tokens
        wait_s = 0.0
        rpm = self.requests_per_minute
        if rpm is not None and len(log) >= rpm:
            # The entry whose expiry leaves rpm - 1 others in the window.
            wait_s = max(log[len(log) - rpm].at - horizon, _MIN_WAIT_S)
        tpm = self.tokens_per_minute
        if tpm is not None and self._tokens + tokens > tpm:
            excess = self._tokens + tokens - tpm
            for ticket in log:
                excess -= ticket.tokens
                if excess <= 0:
                    wait_s = max(wait_s, ticket.at - horizon, _MIN_WAIT_S)
                    break
        return wait_s


def limiter_for(config: OpenAIConfig, clock: Clock = REAL_CLOCK) -> RateLimiter | None:
    """A limiter under the caps `config` sets (one per replica), or None when it sets none."""
    rpm, tpm = config.max_requests_per_minute, config.max_tokens_per_minute
    if rpm is None and tpm is None:
        return None
    return RateLimiter(rpm, tpm, clock, config.rate_limit_margin_s)
