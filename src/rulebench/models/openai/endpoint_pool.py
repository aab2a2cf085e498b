"""Several replicas of one model: each request goes to the least-loaded healthy one.

A request that begins as an earlier one did (a conversation's next turn, an item sharing its
instructions and demonstrations) goes where that one went (`prefix_affinity`), as that server
holds the beginning in its prefix cache, unless that replica is out or far busier than others.

Users who outgrow one inference server run replicas (vLLM or SGLang data-parallel, one per GPU
or node) and list their URLs. A replica whose attempt fails the way a sick server fails
(refused or dropped connection, timeout, 5xx, 429) is taken out for a cool-down, doubled at
each failed comeback up to a cap; when it is due back, a single request probes it while the
others keep going elsewhere, and one success brings it back in full. Failures that say nothing
about the server (a malformed reply) move the retry elsewhere without taking the replica out.
"""

import logging
import math
from collections.abc import Sequence

from rulebench.models.clock import REAL_CLOCK, Clock
from rulebench.models.openai.endpoint import Endpoint
from rulebench.models.openai.prefix_affinity import AffinityTable
from rulebench.models.openai.rate_limit import RateLimiter

logger = logging.getLogger(__name__)

_POLL_S = 0.5
"""Longest wait before a request that found every replica out looks again."""
_PROBE_POLL_S = 0.05
"""Wait while the only replica due back is busy with its probe."""
AFFINITY_SLACK = 2
"""Requests the replica holding a request's beginning may carry beyond the least-loaded one
and still get it (or half the least-loaded one's load, if more): a beginning computed twice
costs one prompt, a replica left idle costs throughput, so items that all begin alike still
spread over every replica."""


class Replica:
    """One endpoint of a model, with its load, health and rate limits."""

    __slots__ = (
        "cooldown_s",
        "endpoint",
        "in_flight",
        "limiter",
        "out_until",
        "post_url",
        "shown_url",
    )

    def __init__(self, endpoint: Endpoint, path: str, limiter: RateLimiter | None) -> None:
        self.endpoint = endpoint
        self.post_url = endpoint.url(path)
        self.shown_url = endpoint.shown_url
        """The base URL without credentials or query values, as recorded on completions (made
        once: every completion names it)."""
        self.limiter = limiter
        self.in_flight = 0
        """Requests given this replica that have not finished (waiting for a rate limit too)."""
        self.out_until: float | None = None
        """Clock time a taken-out replica is due back; None while healthy."""
        self.cooldown_s = 0.0
        """The next cool-down's length, set by the pool."""

    def is_open(self, now: float) -> bool:
        """Whether a request may go here now: healthy, or due back with no probe in flight."""
        out_until = self.out_until
        return out_until is None or (now >= out_until and not self.in_flight)


class EndpointPool:
    """Chooses a replica per attempt and tracks which replicas are out."""

    def __init__(
        self,
        replicas: Sequence[Replica],
        cooldown_s: float = 2.0,
        max_cooldown_s: float = 30.0,
        clock: Clock = REAL_CLOCK,
    ) -> None:
        self.replicas = tuple(replicas)
        self._cooldown_s = cooldown_s
        self._max_cooldown_s = max(cooldown_s, max_cooldown_s)
        self._clock = clock
        self._turn = 0
        self._affinity: AffinityTable[Replica] = AffinityTable()
        for replica in self.replicas:
            replica.cooldown_s = cooldown_s

    async def acquire(self, avoid: Replica | None = None, prefix: Sequence[bytes] = ()) -> Replica:
        """The least-loaded open replica, counted as busy; waits while every replica is out.

        `avoid` (where this request just failed) is chosen only when no other is open. A
        request's `prefix` hashes (`prefix_affinity.prefix_hashes`) send it where its longest
        known beginning went, while that replica is open and within AFFINITY_SLACK requests
        of the least loaded; its beginning then follows wherever it goes.
        """
        while True:
            replica = self._choose(avoid)
            if replica is not None:
                if prefix:
                    replica = self._affine(prefix, replica, avoid)
                    self._affinity.remember(prefix, replica)
                replica.in_flight += 1
                return replica
            await self._clock.sleep(self._wait_s())

    def _affine(self, prefix: Sequence[bytes], least: Replica, avoid: Replica | None) -> Replica:
        """The replica holding the request's beginning, or `least` where it cannot take it."""
        earlier = self._affinity.find(prefix)
        if earlier is None or earlier is avoid or earlier is least:
            return least
        if not earlier.is_open(self._clock.now()):
            return least  # out (sick or cooling down), or due back and busy with its probe
        slack = max(AFFINITY_SLACK, least.in_flight // 2)
        return least if earlier.in_flight > least.in_flight + slack else earlier

    def release(self, replica: Replica) -> None:
        """The attempt given `replica` has finished, however it went."""
        replica.in_flight -= 1

    def succeeded(self, replica: Replica) -> None:
        """An attempt got a reply: the replica is healthy, its cool-down back to the start."""
        if replica.out_until is not None:
            logger.info("endpoint %s answers again: back in use", replica.shown_url)
            replica.out_until = None
        replica.cooldown_s = self._cooldown_s

    def failed(self, replica: Replica, cause: str, retry_after_s: float | None = None) -> None:
        """An attempt failed as a sick server fails: take the replica out for a cool-down.

        Attempts that were already in flight when it went out change nothing; a failed probe
        (the first attempt after the cool-down) doubles the next one, up to the cap.
        """
        now = self._clock.now()
        if replica.out_until is not None and now < replica.out_until:
            return
        wait_s = max(replica.cooldown_s, retry_after_s or 0.0)
        was_healthy = replica.out_until is None
        replica.out_until = now + wait_s
        replica.cooldown_s = min(replica.cooldown_s * 2, self._max_cooldown_s)
        log = logger.warning if was_healthy else logger.debug
        log("endpoint %s taken out for %.3g s: %s", replica.shown_url, wait_s, cause)

    def _choose(self, avoid: Replica | None) -> Replica | None:
        # Ties go round robin: the scan starts one replica further each call.
        now = self._clock.now()
        replicas = self.replicas
        count = len(replicas)
        start = self._turn
        self._turn = (start + 1) % count
        best: Replica | None = None
        best_load = math.inf
        for offset in range(count):
            replica = replicas[(start + offset) % count]
            if not replica.is_open(now):
                continue
            load = replica.in_flight + (math.inf if replica is avoid else 0)
            if best is None or load < best_load:
                best, best_load = replica, load
        return best

    def _wait_s(self) -> float:
        now = self._clock.now()
        due = [r.out_until - now for r in self.replicas if r.out_until is not None]
        ahead = [wait for wait in due if wait > 0]
        if len(ahead) < len(due):  # a replica is due back, busy with its probe
            ahead.append(_PROBE_POLL_S)
        wait_s = min(ahead)
        return min(max(wait_s, 0.001), _POLL_S)
