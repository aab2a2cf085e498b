"""What one model call sent: its attempts, the timeouts among them, and the tokens retried.

A timeout is not an error like the others: the server is often still computing the request it
was given, and cannot be told to stop. Re-sending it with the same timeout asks a slow server
for the same work again while it is busiest, so each re-send after a timeout gets twice the
time, up to a cap; an attempt that times out at the cap is not re-sent.
"""

import logging
from dataclasses import dataclass, field

import aiohttp

from rulebench.core.errors import ModelError
from rulebench.core.messages import Usage
from rulebench.models.openai.config import OpenAIConfig
from rulebench.models.openai.endpoint_pool import Replica
from rulebench.models.openai.reasoning_params import refused_params
from rulebench.models.openai.reply import AttemptFailed, parse_retry_after, server_message

logger = logging.getLogger(__name__)


def timeout_cap_s(config: OpenAIConfig) -> float:
    """The longest an attempt is given: max_timeout_s, or 4 x timeout_s when unset."""
    cap = config.max_timeout_s if config.max_timeout_s is not None else 4 * config.timeout_s
    return max(cap, config.timeout_s)


@dataclass
class CallAttempts:
    """The attempts of one generate call, in order."""

    tried: list[Replica] = field(default_factory=list)
    """The replica of each attempt: one entry per request sent."""
    timeouts_s: list[float] = field(default_factory=list)
    """The timeout of each attempt that timed out."""
    retried_usage: Usage = field(default_factory=Usage)
    """Tokens of replies that came back yet were retried (a 200 without choices): the server
    spent them, so they are counted with the call's usage."""
    prefix: tuple[bytes, ...] = ()
    """The hashes of the request's beginning (`prefix_affinity.prefix_hashes`), with several
    replicas: each attempt prefers the replica that computed that beginning."""

    def next_timeout_s(self, config: OpenAIConfig) -> float:
        """The next attempt's timeout: doubled after each timeout so far, capped."""
        if not self.timeouts_s:
            return config.timeout_s
        return min(2 * self.timeouts_s[-1], timeout_cap_s(config))

    def record(self, failed: AttemptFailed) -> bool:
        """Note a failed attempt's timeout and reported tokens; True when it timed out."""
        self.retried_usage = self.retried_usage + failed.usage
        if failed.timed_out_s is None:
            return False
        self.timeouts_s.append(failed.timed_out_s)
        return True


def is_worth_resending(exc: BaseException, config: OpenAIConfig) -> bool:
    """Whether a failed attempt is re-sent: a transient failure, short of a timeout at the cap.

    A timeout at the cap is final: the server is slower than the run allows, and a re-send
    would only add to the load of a server still computing the first request.
    """
    if not isinstance(exc, AttemptFailed):
        return False
    return exc.timed_out_s is None or exc.timed_out_s < timeout_cap_s(config)


def exhausted_error(
    label: str, exc: AttemptFailed, call: CallAttempts, config: OpenAIConfig
) -> ModelError:
    """The one-line error of a call whose last attempt failed: a timeout names every timeout."""
    attempts = len(call.tried)
    cause, kind = exc.cause, exc.cause
    hint = f"; the server said: {exc.detail}" if exc.detail else ""
    if exc.timed_out_s is not None:
        cause = f"no reply within {seconds_list(call.timeouts_s)}"
        kind = "no reply within the timeout"
        hint = (
            f"; the server is slower than -M timeout_s={config.timeout_s:g} (the timeout "
            f"doubles after each, up to {timeout_cap_s(config):g} s, -M max_timeout_s): raise it"
        )
    return ModelError(
        f"{label}: {cause} after {attempts} attempt"
        f"{'s' if attempts > 1 else ''} ({call.tried[-1].shown_url}){hint}",
        kind=kind,
        attempts=attempts,
    )


class TimeoutTally:
    """The attempts of one model that timed out, over all its calls.

    Warned of at the first, counted in the run notes at the end.
    """

    def __init__(self, label: str, config: OpenAIConfig) -> None:
        self._label = label
        self._timeout_s = config.timeout_s
        self.count = 0

    def add(self) -> None:
        """Count one timed-out attempt; the first is logged as a warning, once per model."""
        self.count += 1
        if self.count == 1:
            logger.warning("%s: %s", self._label, self._note())

    @property
    def notes(self) -> tuple[str, ...]:
        """The run note, when any attempt timed out: the server is slower than allowed."""
        return (self._note(),) if self.count else ()

    def _note(self) -> str:
        requests = "request" if self.count == 1 else "requests"
        return (
            f"{self.count} {requests} timed out after {self._timeout_s:g} s or more: the "
            f"server is slower than -M timeout_s={self._timeout_s:g}; raise it"
        )


def seconds_list(values: list[float]) -> str:
    """`0.2 s`, `0.2 s and 0.4 s`, `0.2 s, 0.4 s and 0.8 s`: timeouts as an error names them."""
    shown = [f"{value:g} s" for value in values]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def status_error(
    response: aiohttp.ClientResponse, raw: bytes, label: str, shown_url: str
) -> ModelError:
    """What an attempt answered with a status other than 2xx ended in; `raw` is its body.

    408, 429 and 5xx are transient (AttemptFailed, retried); a 400 refusing a parameter is
    ParamsRefused (adapted to); anything else is final.
    """
    status = response.status
    cause = f"{status} {response.reason or ''}".rstrip()
    detail = server_message(raw)
    if status in (408, 429) or status >= 500:
        failed = AttemptFailed(cause, detail, parse_retry_after(response.headers))
        failed.is_overload = status in (429, 503)
        return failed
    message = f"{label}: {cause} ({shown_url}): {detail}"
    if status == 400 and (refused := refused_params(message, detail)) is not None:
        return refused
    return ModelError(message, kind=cause)
