"""Settings of the OpenAI-compatible backend, from `-M key=value`, validated with clear errors."""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ApiKind = Literal["chat", "completions"]


class OpenAIConfig(BaseModel):
    """Settings of the OpenAI-compatible backend, from `-M key=value`.

    Every number is finite and bounded: `timeout_s=inf` would make every request fail with an
    OverflowError, and a huge backoff would sleep through a whole run.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    timeout_s: float = Field(default=120.0, gt=0, le=3600)
    """Time allowed for a first attempt, from sending the request to the reply's last byte.
    After an attempt times out, the next one gets twice as long, up to max_timeout_s."""
    max_timeout_s: float | None = Field(default=None, gt=0, le=7200)
    """Cap on the growing timeout (default 4 x timeout_s). An attempt that times out at the
    cap is not re-sent: the server is slower than the run allows, and a re-send only adds to
    the work of a server that is still computing the abandoned request."""
    max_retries: int = Field(default=6, ge=0, le=100)
    """Retries after the first attempt; only transient failures (429, 408, 5xx, timeouts,
    dropped connections, malformed replies) are retried, timeouts only below max_timeout_s."""
    initial_backoff_s: float = Field(default=0.5, ge=0, le=60)
    max_backoff_s: float = Field(default=30.0, ge=0, le=600)
    """Cap on any wait between attempts (Retry-After aside), and on an endpoint's cool-down."""
    max_retry_after_s: float = Field(default=60.0, ge=0, le=3600)
    """Cap on an honoured Retry-After, so one odd header cannot stall a run for hours."""
    max_connections: int = Field(default=64, ge=1, le=4096)
    """Requests in flight at once over all the model's endpoints, and the connection pool's
    size; with several replicas, raise it (and --concurrency) to keep each of them busy."""
    max_reply_bytes: int = Field(default=8 * 1024 * 1024, ge=1024, le=1024**3)
    """Largest reply body read (8 MiB); a larger one fails the item instead of filling memory
    (a server's oversized replies once took hundreds of MB). Counted after decompression."""
    max_reply_chars: int = Field(default=1_000_000, ge=1)
    """Longest reply text kept; a longer one is cut, with a warning stored with the result."""
    cooldown_s: float = Field(default=2.0, ge=0, le=600)
    """With several base URLs: how long an endpoint whose attempt failed (refused or dropped
    connection, timeout, 5xx, 429) is left out before one request probes it; doubled at each
    failed probe, up to max_backoff_s. A 429's Retry-After lengthens it."""
    prefix_affinity: bool = True
    """With several base URLs: send a request that begins as an earlier one did (a
    conversation's next turn, items sharing instructions and demonstrations) to the endpoint
    that computed that beginning, where its prefix cache holds it, unless that endpoint is out
    or busier than the others; false: always the least-loaded endpoint."""
    max_requests_per_minute: int | None = Field(default=None, ge=1)
    """Client-side cap on requests sent to each endpoint in any 60 s (an API tier's RPM), kept
    before the server has to answer 429. Every attempt counts, retries included; see
    rate_limit_margin_s."""
    max_tokens_per_minute: int | None = Field(default=None, ge=1)
    """Client-side cap on tokens per endpoint in any 60 s (an API tier's TPM). A request counts
    as providers count it on arrival, the prompt's characters / 4 plus the whole max_tokens,
    raised (never lowered) to its reply's usage. A request larger than the cap fails at once."""
    rate_limit_margin_s: float = Field(default=1.0, ge=0, le=60)
    """Seconds added to the minute the two caps above count over: a request counts for 61 s by
    default, so the send delay and clock skew between client and server cannot put more than
    the caps in a 60 s window the server counts."""
    api: ApiKind = "chat"
    """`chat` posts messages to /chat/completions; `completions` posts the conversation as one
    prompt (written with the transcript template) to /completions, for completion-only models
    such as gpt-3.5-turbo-instruct or a base model served by vLLM."""
    transcript: str | None = None
    """With api=completions: `default` or a TOML file (see rulebench.models.transcript): how
    the conversation is written as text, and where a reply stops. Default: `default`."""
