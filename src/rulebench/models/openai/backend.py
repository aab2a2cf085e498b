"""OpenAI-compatible backend: OpenAI itself, vLLM, SGLang, llama.cpp server, Ollama, ...

This is the only place rulebench retries a model call: only here are status codes and
Retry-After visible, so only here can a transient failure be told from a final one. The runner
records whatever still fails as an error. A model may have several endpoints (replicas): each
attempt goes to the least-loaded healthy one (`endpoint_pool`), or to the one that computed the
request's beginning (`prefix_affinity`), and a retry goes elsewhere.
"""

import json
import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import aiohttp

from rulebench.core.errors import ConfigError, ModelError, TransientModelError
from rulebench.core.messages import Completion, GenerateConfig, Message, Usage
from rulebench.core.reasoning import split_reasoning
from rulebench.models.adaptive_limit import AdaptiveGate, ConcurrencyControl, admitted
from rulebench.models.base import BackendOptions, ModelInfo, parse_backend_args
from rulebench.models.clock import REAL_CLOCK, Clock
from rulebench.models.openai.attempts import (
    CallAttempts,
    TimeoutTally,
    exhausted_error,
    is_worth_resending,
    status_error,
)
from rulebench.models.openai.config import OpenAIConfig
from rulebench.models.openai.endpoint import Endpoint, resolve_endpoints
from rulebench.models.openai.endpoint_pool import EndpointPool, Replica
from rulebench.models.openai.prefix_affinity import prefix_hashes
from rulebench.models.openai.rate_limit import estimate_tokens, limiter_for
from rulebench.models.openai.reachable import check_reachable
from rulebench.models.openai.reasoning_params import ParamsRefused, RequestParams
from rulebench.models.openai.reply import (
    AttemptFailed,
    Reply,
    clean_server_text,
    describe_connection_error,
    is_cut_while_thinking,
    parse_reply,
    parse_retry_after,
    read_at_most,
    server_message,
)
from rulebench.models.openai.request import choose_format
from rulebench.models.openai.server_cache import ServerCacheTally
from rulebench.models.openai.session import SessionHolder, endpoint_headers

if TYPE_CHECKING:
    # tenacity is imported on a first failed attempt, not at start: most runs never retry.
    from tenacity import RetryCallState
    from tenacity.wait import wait_base

__all__ = ["OpenAIConfig", "OpenAIModel", "parse_reply", "parse_retry_after", "server_message"]

logger = logging.getLogger(__name__)

_ERROR_BODY_BYTES = 64 * 1024
"""Most bytes read of an error body: only ~200 characters are shown."""


class OpenAIModel:
    """A model behind one or more OpenAI-compatible endpoints: pooled connections, retries."""

    def __init__(
        self,
        endpoints: Endpoint | Sequence[Endpoint],
        config: OpenAIConfig | None = None,
        clock: Clock = REAL_CLOCK,
    ) -> None:
        given = (endpoints,) if isinstance(endpoints, Endpoint) else tuple(endpoints)
        first = given[0]
        self._config = config = config or OpenAIConfig()
        self._model_name = first.model
        self._label = first.label
        self._format = choose_format(config, self._label)
        self._params = RequestParams.for_endpoints(given)
        self._secrets = tuple(sorted({s for e in given for s in e.secrets}, key=len, reverse=True))
        path = self._format.path
        self._replicas = tuple(Replica(e, path, limiter_for(config, clock)) for e in given)
        self._has_limits = self._replicas[0].limiter is not None
        self._has_affinity = len(given) > 1 and config.prefix_affinity  # else nothing to hash
        # One endpoint keeps the path it always had: no pool, no health, today's backoff.
        self._endpoint_pool = (
            EndpointPool(self._replicas, config.cooldown_s, config.max_backoff_s, clock)
            if len(given) > 1
            else None
        )
        shown = [e.shown_url for e in given]
        # Sorted: which replica answers, and the order they were listed in, key nothing.
        urls = ",".join(sorted(shown))
        self._info = ModelInfo(
            provider=first.provider,
            name=first.name,
            identity=f"{self._label}@{urls}{self._format.identity_suffix}",
            transcript=self._format.transcript_json,
        )
        self._session = SessionHolder(
            endpoint_headers(first), config.timeout_s, config.max_connections
        )
        self._backoff: wait_base | None = None  # built by _retry, on the first failure
        self._timeouts = TimeoutTally(self._label, config)
        self.server_cache = ServerCacheTally()  # what the server says it cached: a run note
        self._clock = clock
        self._gate: AdaptiveGate | None = None  # a run whose concurrency is found sets it

    @classmethod
    def create_openai(cls, name: str, options: BackendOptions) -> "OpenAIModel":
        """Build `openai/<model>`: OPENAI_API_KEY, OPENAI_BASE_URL (default OpenAI's)."""
        config = parse_backend_args(OpenAIConfig, options.args, f"openai/{name}")
        return cls(resolve_endpoints("openai", name, name, options), config)

    @classmethod
    def create_compatible(cls, name: str, options: BackendOptions) -> "OpenAIModel":
        """Build `openai-api/<provider>/<model>`: <PROVIDER>_API_KEY, <PROVIDER>_BASE_URL."""
        provider, _, model = name.partition("/")
        if not provider or not model:
            raise ConfigError(
                f"model spec 'openai-api/{name}' needs a provider and a model: write "
                "openai-api/<provider>/<model>, e.g. "
                "openai-api/vllm/meta-llama/Llama-3.1-8B-Instruct"
            )
        config = parse_backend_args(OpenAIConfig, options.args, f"openai-api/{name}")
        return cls(resolve_endpoints("openai-api", name, model, options), config)

    @property
    def info(self) -> ModelInfo:
        """Provider, name and identity (spec plus server URLs, never the key)."""
        return self._info

    @property
    def config(self) -> OpenAIConfig:
        """The backend settings in force."""
        return self._config

    @property
    def endpoint_urls(self) -> tuple[str, ...]:
        """The base URLs requests go to, without credentials, in the order given."""
        return tuple(replica.shown_url for replica in self._replicas)

    @property
    def run_notes(self) -> tuple[str, ...]:
        """What the requests sent differently from the run's settings, and why (run notes)."""
        return (*self._params.notes, *self._timeouts.notes, *self.server_cache.notes)

    def check_generate_config(self, config: GenerateConfig) -> None:
        """Refuse settings this endpoint cannot take (ConfigError), before any request is sent."""
        self._params.check(config)

    def __repr__(self) -> str:
        return f"OpenAIModel({self._info.identity!r})"

    async def generate(self, messages: Sequence[Message], config: GenerateConfig) -> Completion:
        """Reply to the conversation, retrying transient failures; ModelError when they persist.

        `latency_s` is the wall time of the whole call, retries and waits included; `endpoint`
        the base URL that answered (always set, one endpoint or several); `attempts` the
        requests sent, retries and resends included.
        """
        self.check_generate_config(config)
        body = self._format.body(self._model_name, messages, config)
        tokens = self._count_tokens(messages, config) if self._has_limits else 0
        call = CallAttempts(prefix=prefix_hashes(messages) if self._has_affinity else ())
        start = time.perf_counter()
        reply, sent_warnings = await self._send(body, tokens, call)
        self.server_cache.add(reply.prompt_tokens, reply.cache)
        split = split_reasoning(
            reply.text,
            reply.reasoning,
            config.reasoning.tags,
            is_truncated=reply.finish_reason == "length",
        )
        is_unfinished = split.is_unfinished or is_cut_while_thinking(reply, split.answer)
        # Plain construction, not model_construct: with pydantic 2 validating these few typed
        # fields is the faster of the two (docs/performance.md).
        return Completion(
            text=self._format.finish(split.answer),
            reasoning=split.reasoning,
            is_reasoning_unfinished=is_unfinished,
            usage=Usage(
                prompt_tokens=reply.prompt_tokens,
                completion_tokens=reply.completion_tokens,
                reasoning_tokens=reply.reasoning_tokens,
            ),
            latency_s=time.perf_counter() - start,
            finish_reason=reply.finish_reason,
            warnings=(*sent_warnings, *reply.warnings, *split.warnings),
            endpoint=call.tried[-1].shown_url,
            attempts=len(call.tried),
            retried_usage=call.retried_usage,
        )

    async def _send(
        self, body: dict[str, Any], tokens: int, call: CallAttempts
    ) -> tuple[Reply, list[str]]:
        """The reply to `body` sent as the model takes it, and a warning per setting changed.

        A 400 refusing a parameter the model can do without is adapted to and resent; each
        adaptation removes a parameter or renames one, so this ends within three resends.
        """
        learned: list[str] = []
        while True:
            sent, changed = self._params.apply(body)
            payload = json.dumps(sent).encode()
            try:
                try:
                    reply = await self._post(payload, tokens, call)
                except AttemptFailed as first:
                    reply = await self._retry(payload, tokens, call, first)
            except ParamsRefused as refused:
                warning = self._params.learn(refused, sent)  # raises when nothing can change
                learned += [warning] if warning else []
                continue
            return reply, learned + changed

    def _count_tokens(self, messages: Sequence[Message], config: GenerateConfig) -> int:
        tokens = estimate_tokens(messages, config.max_tokens)
        cap = self._config.max_tokens_per_minute
        if cap is not None and tokens > cap:
            raise ModelError(
                f"{self._label}: this request counts as ~{tokens:,} tokens (prompt characters / 4 "
                f"+ max_tokens {config.max_tokens:,}), more than max_tokens_per_minute={cap:,} "
                "allows in a minute: raise -M max_tokens_per_minute or lower --max-tokens"
            )
        return tokens

    async def _retry(
        self, payload: bytes, tokens: int, call: CallAttempts, first: AttemptFailed
    ) -> Reply:
        # Tenacity is set up only once a first attempt has failed: building and running an
        # AsyncRetrying costs a large share of a whole request's overhead. It
        # replays that failure as attempt 1, so waits, logging and counts stay in one place.
        from tenacity import (
            AsyncRetrying,
            retry_if_exception,
            stop_after_attempt,
            wait_exponential,
            wait_random,
        )

        if self._backoff is None:
            # Exponential from initial_backoff_s plus up to initial_backoff_s of jitter, so
            # clients that failed together do not retry together; _wait caps the sum.
            initial = self._config.initial_backoff_s
            self._backoff = wait_exponential(
                multiplier=initial, max=self._config.max_backoff_s
            ) + wait_random(0, initial)
        replayed = [first]

        async def attempt() -> Reply:
            if replayed:
                raise replayed.pop()
            return await self._post(payload, tokens, call)

        retrying = AsyncRetrying(
            retry=retry_if_exception(lambda exc: is_worth_resending(exc, self._config)),
            stop=stop_after_attempt(self._config.max_retries + 1),
            wait=self._wait,
            before_sleep=self._log_retry,
            reraise=True,
        )
        try:
            return await retrying(attempt)
        except AttemptFailed as exc:
            raise exhausted_error(self._label, exc, call, self._config) from None

    def _wait(self, state: "RetryCallState") -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, AttemptFailed) and exc.is_server_down and self._endpoint_pool:
            return 0.0  # that replica is out: the pool waits, and only if all of them are
        if isinstance(exc, TransientModelError) and exc.retry_after_s is not None:
            return min(exc.retry_after_s, self._config.max_retry_after_s)
        assert self._backoff is not None  # _retry built it before its first wait
        return min(float(self._backoff(state)), self._config.max_backoff_s)

    def _log_retry(self, state: "RetryCallState") -> None:
        exc = state.outcome.exception() if state.outcome else None
        logger.debug(
            "%s: attempt %d failed (%s); retrying in %.2f s",
            self._label,
            state.attempt_number,
            exc,
            state.next_action.sleep if state.next_action else 0.0,
        )

    async def _post(self, payload: bytes, tokens: int, call: CallAttempts) -> Reply:
        # The choke point for server texts: every error of an attempt leaves through here,
        # cleaned of secrets and lone surrogates, before it is retried, logged or raised.
        pool = self._endpoint_pool
        if pool is None:
            replica = self._replicas[0]
        else:
            replica = await pool.acquire(call.tried[-1] if call.tried else None, call.prefix)
        call.tried.append(replica)
        timeout_s = call.next_timeout_s(self._config)
        try:
            reply = await self._attempt(replica, payload, tokens, timeout_s)
        except AttemptFailed as exc:
            if call.record(exc):
                self._timeouts.add()
            cleaned = AttemptFailed(
                self._clean(exc.cause),
                self._clean(exc.detail),
                exc.retry_after_s,
                exc.is_server_down,
                exc.timed_out_s,
            )
            cleaned.is_overload = exc.is_overload
            if pool is not None and exc.is_server_down:
                retry_after_s = exc.retry_after_s
                if retry_after_s is not None:
                    retry_after_s = min(retry_after_s, self._config.max_retry_after_s)
                pool.failed(replica, cleaned.cause, retry_after_s)
            raise cleaned from None
        except ParamsRefused as exc:
            raise ParamsRefused(self._clean(str(exc)), self._clean(exc.detail)) from None
        except ModelError as exc:
            raise ModelError(self._clean(str(exc)), kind=exc.kind) from None
        finally:
            if pool is not None:
                pool.release(replica)
        if pool is not None:
            pool.succeeded(replica)
        return reply

    async def _attempt(
        self, replica: Replica, payload: bytes, tokens: int, timeout_s: float
    ) -> Reply:
        pool = await self._session.get()
        limit = self._config.max_reply_bytes
        limiter = replica.limiter
        # Waiting for a slot happens outside aiohttp, so the timeout counts only server time.
        async with pool.slots, admitted(self._gate, AttemptFailed.says_overloaded):
            # Admitted once a slot is held, right before sending: admitted before, a request
            # could queue for a slot and reach the server later than its admission says.
            ticket = None if limiter is None else await limiter.acquire(tokens)
            try:
                timeout = aiohttp.ClientTimeout(total=timeout_s)
                sent = pool.session.post(replica.post_url, data=payload, timeout=timeout)
                async with sent as response:
                    if not 200 <= response.status < 300:
                        raw, _ = await read_at_most(response, min(limit, _ERROR_BODY_BYTES))
                        raise status_error(response, raw, self._label, replica.shown_url)
                    raw, is_cut = await read_at_most(response, limit)
            except TimeoutError:
                raise AttemptFailed(
                    f"no reply within {timeout_s:g} s", timed_out_s=timeout_s
                ) from None
            except (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError) as exc:
                raise AttemptFailed(f"connection error: {describe_connection_error(exc)}") from None
            except aiohttp.ClientError as exc:
                raise ModelError(
                    f"{self._label}: {exc} ({replica.shown_url})", kind=type(exc).__name__
                ) from None
        if is_cut:  # not retried: the same request would get the same reply
            raise ModelError(
                f"{self._label}: reply body larger than max_reply_bytes ({limit:,} bytes) "
                f"({replica.shown_url}); raise the limit with -M max_reply_bytes=<bytes>",
                kind="reply larger than max_reply_bytes",
            )
        reply = parse_reply(raw, self._config.max_reply_chars, self._secrets, self._format.api)
        used = reply.prompt_tokens + reply.completion_tokens
        if limiter is not None and ticket is not None and used:
            limiter.settle(ticket, used)
        return reply

    def _clean(self, text: str) -> str:
        return clean_server_text(text, self._secrets)

    async def check_reachable(self) -> None:
        """Fail fast with one line when no server is up (`reachable.check_reachable`)."""
        session = (await self._session.get()).session
        pool = self._endpoint_pool
        await check_reachable(session, self._label, self._replicas, self._secrets, pool)

    def adapt_concurrency(self, start: int | None) -> int | None:
        """Find the requests in flight from `start` up (`adaptive_limit`); None: fixed.

        Returns the most requests this backend may have in flight (max_connections): the
        runner offers that many, and the gate holds back all but the limit found.
        """
        ceiling = self._config.max_connections
        control = None if start is None else ConcurrencyControl(start, ceiling)
        self._gate = None if control is None else AdaptiveGate(control, self._clock)
        return None if control is None else ceiling

    @property
    def concurrency_note(self) -> str | None:
        """The concurrency the run found, for its notes; None when it was fixed."""
        return None if self._gate is None else self._gate.control.summary()

    async def aclose(self) -> None:
        """Close the pooled connections."""
        await self._session.aclose()
