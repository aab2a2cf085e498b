r"""A fault-injecting OpenAI-compatible server, for tests and benchmarks of HTTP backends.

It serves POST /v1/chat/completions, POST /v1/completions and GET /v1/models on 127.0.0.1. A
chat request is answered by echoing the last user message (or by a `reply_fn(body) -> str`; a
`<think>` block in it is sent as `config.thinking` says, like a reasoning model's server), a
completions request by a space and its prompt (or by a `completion_fn(body) -> str`), cut where
the request's first stop sequence begins, as real servers cut; both after `latency_s`. With
`max_concurrent` set, at most that many requests are answered at once and the rest queue, like
a replica of limited capacity.

Faults are requested by a marker in the last user message (or anywhere in a completions prompt),
so a test says in its own data what the server must do and a run over many conversations can
fail exactly where it wants:

    [[fault:KIND]]     every request carrying this conversation gets KIND
    [[fault:KINDxN]]   the first N requests carrying this exact conversation get KIND, later
                       ones succeed (e.g. [[fault:500x2]]: two 500s, then a reply)

KIND is one of:
    500, 502, 503  that status, with an OpenAI-style error body
    429            429 with Retry-After: 1
    429r0          429 with Retry-After: 0 (a rate limit that costs a test no time)
    400, 404       that status (not worth retrying)
    slow           sleep `slow_s` (default 600 s) before answering: a client timeout
    malformed      status 200 with a truncated JSON body
    malformedkey   status 200 with a truncated JSON body that echoes the Authorization header
                   it received, as careless servers do (clients must scrub it)
    drop           close the connection without any response
    nochoices      status 200 with valid JSON but no "choices" (its usage counts the prompt)
    surrogate      the normal reply whose content ends with the JSON escape \ud83d: valid JSON
                   that decodes to a lone surrogate (a token limit cutting an emoji in half)
    badutf8        the normal reply with a fresh id (a body that differs every time) and the
                   bytes 0xFF 0xFE, invalid UTF-8, in its content
    huge           the normal reply plus `huge_bytes` (default 3 MiB) of text, Content-Length set
    hugestream     the same body sent chunked, without a Content-Length

Requests are counted per conversation (a hash of the messages JSON), so retries of the same
conversation see attempts 1, 2, 3... An unknown KIND gets a 400 naming the known ones.

Chaos mode: with `fault_rate` > 0, a request without a marker gets a fault with that
probability, drawn from `fault_kinds` by a Random seeded with (fault_seed, conversation,
attempt), so the same conversation fails on the same attempts whatever the arrival order.

O-series mode: with `reasoning_api` (`--reasoning-api`), requests OpenAI's reasoning models
refuse (`max_tokens`, a temperature other than 1) get their 400 (`mock_reasoning_api`).

Three ways to run it:
    async with MockOpenAIServer(config) as server: ...    # in the current loop; server.url
    with serve_in_thread(config) as server: ...           # own loop in a background thread
    python -m rulebench.testing.mock_openai --port 0 --latency-ms 200 --log FILE
        # prints the base URL on one stdout line, then serves until killed
"""

import asyncio
import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field

from rulebench.testing.faults import CHAOS_FAULT_KINDS, FaultKind, FaultPlan
from rulebench.testing.mock_prefix_cache import (
    CacheReportStyle,
    MockPrefixCache,
    cache_fields,
    prompt_words,
)
from rulebench.testing.mock_reasoning_api import refuse_unsupported
from rulebench.testing.mock_replies import (
    ReplyFn,
    ThinkingStyle,
    chat_reply_bytes,
    completion_reply_bytes,
    echo_last_user,
    echo_prompt,
)

__all__ = ["MockOpenAIServer", "MockServerConfig", "ReplyFn", "echo_last_user", "serve_in_thread"]
_STATUS_FAULTS = {
    "500": 500,
    "502": 502,
    "503": 503,
    "429": 429,
    "429r0": 429,
    "400": 400,
    "404": 404,
}
_BAD_UTF8_MARK = "<<invalid-utf8>>"
"""Written into a reply's text as JSON, then swapped for bytes no UTF-8 decoder accepts."""


class MockServerConfig(BaseModel):
    """How the mock server behaves; every knob has a default that answers at once, faultless."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    host: str = "127.0.0.1"
    port: int = 0
    """0 picks a free port; read the result from `server.url`."""
    latency_s: float = Field(default=0.0, ge=0)
    """Sleep before every answer, to stand in for a model's generation time."""
    slow_s: float = Field(default=600.0, ge=0)
    """How long a `slow` fault sleeps: longer than any sane client timeout."""
    huge_bytes: int = Field(default=3 * 1024 * 1024, ge=0)
    """Text added to the reply by the `huge` and `hugestream` faults."""
    require_api_key: str | None = None
    """When set, requests without `Authorization: Bearer <this>` get a 401."""
    fault_rate: float = Field(default=0.0, ge=0, le=1)
    fault_seed: int = 0
    fault_kinds: tuple[FaultKind, ...] = CHAOS_FAULT_KINDS
    log_path: Path | None = None
    """A JSONL file that gets one line per chat request, flushed at once, so another process
    can see which conversations were requested."""
    keep_log: bool = True
    """Keep the request log in memory (`server.requests`); off for long benchmark runs."""
    max_concurrent: int | None = Field(default=None, ge=1)
    """Requests answered at once (latency included); the others wait their turn, as on a
    replica that serves a fixed batch. None: no limit."""
    thinking: ThinkingStyle = "tags"
    """How a chat reply's `<think>...</think>` block is sent, as reasoning models' servers
    differ: in the content (tags, or pre-opened: only the closing tag) or in the
    `reasoning_content` / `reasoning` field, or `hidden` (OpenAI). Replies without a block are
    sent as they are."""
    reasoning_api: bool = False
    """Answer as OpenAI's reasoning models (o1, o3, gpt-5): 400 with OpenAI's wording to
    `max_tokens` and to a temperature or top_p other than 1 (`mock_reasoning_api`)."""
    prefix_cache: CacheReportStyle = "off"
    """Report each chat prompt's tokens found in the replica's cache of its last
    `cache_slots` prompts, as llama.cpp (`timings`) or vLLM (`usage`) do (`mock_prefix_cache`)."""
    cache_slots: int = Field(default=4, ge=1)


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
    body = {"error": {"message": message, "type": "mock_error", "code": status}}
    return web.json_response(body, status=status, headers=headers)


class MockOpenAIServer:
    """An OpenAI-compatible chat server with fault injection and a request log."""

    def __init__(
        self,
        config: MockServerConfig | None = None,
        reply_fn: ReplyFn | None = None,
        completion_fn: ReplyFn | None = None,
    ) -> None:
        self.config = config or MockServerConfig()
        self.reply_fn = reply_fn or echo_last_user
        self.completion_fn = completion_fn or echo_prompt
        self.url = ""
        """Base URL ending in /v1, set once the server has started."""
        self.requests: list[dict[str, Any]] = []
        """The request log: time, api ("chat" or "completions"), path (with its query),
        attempt, messages (a completions prompt as one user message), params, fault, has_auth
        per request."""
        self.in_flight = 0
        self.max_in_flight = 0
        """The most requests ever answered at once (for concurrency-limit tests)."""
        self._faults = FaultPlan(
            self.config.fault_rate, self.config.fault_seed, self.config.fault_kinds
        )
        self._runner: web.AppRunner | None = None
        self._capacity: asyncio.Semaphore | None = None
        self._log_file: TextIO | None = None
        self.prompt_cache = MockPrefixCache(self.config.cache_slots)

    async def start(self) -> str:
        """Start serving; returns the base URL."""
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/v1/completions", self._completions)
        app.router.add_get("/v1/models", self._models)
        # handler_cancellation: a client that gives up on a `slow` fault ends its handler, so
        # shutdown does not wait for it. No access log: benchmarks send thousands a second.
        self._runner = web.AppRunner(
            app, access_log=None, handler_cancellation=True, shutdown_timeout=1.0
        )
        await self._runner.setup()
        if self.config.max_concurrent is not None:
            self._capacity = asyncio.Semaphore(self.config.max_concurrent)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.config.host, self.config.port))
        await web.SockSite(self._runner, sock, backlog=1024).start()
        if self.config.log_path is not None:
            self._log_file = self.config.log_path.open("a", encoding="utf-8")
        host, port = sock.getsockname()[:2]
        self.url = f"http://{host}:{port}/v1"
        return self.url

    async def stop(self) -> None:
        """Stop serving and close the log file."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    async def __aenter__(self) -> "MockOpenAIServer":
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    def requests_with(self, text: str) -> list[dict[str, Any]]:
        """The logged requests whose last message contains `text`."""
        return [
            r
            for r in self.requests
            if r["messages"] and text in str(r["messages"][-1].get("content"))
        ]

    def _is_authorized(self, request: web.Request) -> bool:
        key = self.config.require_api_key
        return key is None or request.headers.get("Authorization") == f"Bearer {key}"

    async def _models(self, request: web.Request) -> web.Response:
        if not self._is_authorized(request):
            return _error(401, "Incorrect API key provided")
        return web.json_response({"object": "list", "data": [{"id": "mock", "object": "model"}]})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        return await self._handle(request, "chat")

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        return await self._handle(request, "completions")

    async def _handle(self, request: web.Request, api: str) -> web.StreamResponse:
        if self._capacity is None:
            return await self._count(request, api)
        async with self._capacity:  # queued requests are not in flight yet
            return await self._count(request, api)

    async def _count(self, request: web.Request, api: str) -> web.StreamResponse:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return await self._answer(request, api)
        finally:
            self.in_flight -= 1

    async def _answer(self, request: web.Request, api: str) -> web.StreamResponse:
        try:
            body = json.loads(await request.read())
            if api == "chat":
                messages = body["messages"]
            else:  # the prompt stands as one user message, for markers and the log
                messages = [{"role": "user", "content": str(body["prompt"])}]
            body["api"], body["messages"] = api, messages
            if not self._is_authorized(request):
                self._record(body, "401", 0, request)
                # Echoes the key it was sent, as careless servers do: clients must scrub it.
                sent = request.headers.get("Authorization", "").removeprefix("Bearer ")
                return _error(401, f"Incorrect API key provided: {sent}")
            fault, attempt = self._faults.choose(messages)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            return _error(400, f"bad request: {exc}")
        self._record(body, fault, attempt, request)
        if self.config.reasoning_api and (refused := refuse_unsupported(body)) is not None:
            return refused
        if self.config.latency_s:
            await asyncio.sleep(self.config.latency_s)
        if fault is not None:
            return await self._inject(fault, request, body)
        return self._reply(body)

    def _record(
        self, body: dict[str, Any], fault: str | None, attempt: int, request: web.Request
    ) -> None:
        entry = {
            "time": time.time(),
            "api": body["api"],
            "path": request.path_qs,
            "attempt": attempt,
            "messages": body.get("messages") or [],
            "params": {k: v for k, v in body.items() if k not in ("messages", "api", "prompt")},
            "fault": fault,
            "has_auth": "Authorization" in request.headers,
        }
        if self.config.keep_log:
            self.requests.append(entry)
        if self._log_file is not None:
            self._log_file.write(json.dumps(entry) + "\n")
            self._log_file.flush()

    async def _inject(
        self, fault: str, request: web.Request, body: dict[str, Any]
    ) -> web.StreamResponse:
        if fault in _STATUS_FAULTS:
            retry_after = {"429": "1", "429r0": "0"}.get(fault)
            headers = {"Retry-After": retry_after} if retry_after else None
            return _error(_STATUS_FAULTS[fault], f"injected fault {fault}", headers)
        if fault == "slow":
            await asyncio.sleep(self.config.slow_s)
            return self._reply(body)
        if fault in ("malformed", "malformedkey"):
            auth = request.headers.get("Authorization", "")
            echoed = {"auth": auth} if fault == "malformedkey" else {}
            head = json.dumps({"id": "chatcmpl-mock", **echoed})[:-1]
            return web.Response(
                body=f'{head}, "choices": [{{"mess'.encode(), content_type="application/json"
            )
        if fault == "nochoices":
            # The prompt was read, so its tokens are reported, as a server cut short reports them.
            prompt_tokens = sum(len(str(m.get("content") or "").split()) for m in body["messages"])
            usage = {"prompt_tokens": prompt_tokens, "completion_tokens": 0}
            return web.json_response(
                {"id": "chatcmpl-mock", "object": "chat.completion", "usage": usage}
            )
        if fault == "surrogate":
            # json.dumps writes a lone surrogate as the ASCII escape \ud83d.
            return self._reply(body, suffix="\ud83d")
        if fault == "badutf8":
            # A fresh id each time, as real servers give: the body differs from its start.
            raw = self._reply_bytes(body, suffix=_BAD_UTF8_MARK).replace(
                b'"chatcmpl-mock"', f'"chatcmpl-{uuid.uuid4().hex[:12]}"'.encode(), 1
            )
            body_bytes = raw.replace(_BAD_UTF8_MARK.encode(), b"\xff\xfe")
            return web.Response(body=body_bytes, content_type="application/json")
        if fault in ("huge", "hugestream"):
            padding = " " + "x" * self.config.huge_bytes
            if fault == "huge":
                return self._reply(body, suffix=padding)
            return await self._stream(request, self._reply_bytes(body, padding))
        # drop: the client sees the connection close before any status line.
        if request.transport is not None:
            request.transport.close()
        return web.Response(status=599)  # never sent: the transport is closed

    @staticmethod
    async def _stream(request: web.Request, body: bytes) -> web.StreamResponse:
        """Send a body chunked, so the client cannot know its size in advance."""
        stream = web.StreamResponse(headers={"Content-Type": "application/json"})
        stream.enable_chunked_encoding()
        await stream.prepare(request)
        for start in range(0, len(body), 64 * 1024):
            await stream.write(body[start : start + 64 * 1024])
        await stream.write_eof()
        return stream

    def _reply(self, body: dict[str, Any], suffix: str = "") -> web.Response:
        return web.Response(body=self._reply_bytes(body, suffix), content_type="application/json")

    def _reply_bytes(self, body: dict[str, Any], suffix: str = "") -> bytes:
        """The normal reply's JSON; `suffix` is added to its text after the max_tokens cut."""
        if body["api"] == "chat":
            thinking, style = self.config.thinking, self.config.prefix_cache
            extra = None
            if style != "off":
                words = prompt_words(body)
                extra = cache_fields(style, len(words), self.prompt_cache.serve(words))
            return chat_reply_bytes(body, self.reply_fn(body), suffix, thinking, extra)
        return completion_reply_bytes(body, self.completion_fn(body), suffix)


@contextmanager
def serve_in_thread(
    config: MockServerConfig | None = None,
    reply_fn: ReplyFn | None = None,
    completion_fn: ReplyFn | None = None,
) -> Iterator[MockOpenAIServer]:
    """Run the server on its own loop in a background thread, for synchronous callers.

    Tests that run the CLI in-process (which starts its own loop) or in a subprocess use this.
    """
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="mock-openai", daemon=True)
    thread.start()
    server = MockOpenAIServer(config, reply_fn, completion_fn)
    try:
        asyncio.run_coroutine_threadsafe(server.start(), loop).result(timeout=30)
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        loop.close()
