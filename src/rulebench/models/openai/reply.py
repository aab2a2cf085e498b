"""What comes back from an OpenAI-compatible server: bodies read within a limit, replies parsed.

Kept apart from the client (openai_api) so the rules for untrusted server bytes (size caps,
malformed JSON, lone surrogates, echoed secrets, Retry-After) are pure functions, testable
without HTTP.
"""

import json
import math
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import NamedTuple

import aiohttp

from rulebench.core.credentials import REDACTED, scrub_secrets
from rulebench.core.errors import TransientModelError
from rulebench.core.messages import Usage
from rulebench.core.text import repair_surrogates, surrogate_warning
from rulebench.models.openai.config import ApiKind
from rulebench.models.openai.server_cache import CacheReport, read_cache_report

DETAIL_CHARS = 200
"""Most characters of a server's message kept in an error."""


class AttemptFailed(TransientModelError):
    """One failed attempt: its cause in a few words, plus what the server said, if anything."""

    def __init__(
        self,
        cause: str,
        detail: str = "",
        retry_after_s: float | None = None,
        is_server_down: bool = True,
        timed_out_s: float | None = None,
    ) -> None:
        super().__init__(f"{cause}: {detail}" if detail else cause, retry_after_s)
        self.is_overload = timed_out_s is not None
        """A 429, a 503 or a timeout: the server has more than it can take (too many in
        flight, or a rate limit), which lowers a concurrency the run is finding."""
        self.cause = cause
        self.detail = detail
        self.is_server_down = is_server_down
        """Whether the failure says the server is sick (connection, timeout, 5xx, 429), so a
        replica is taken out; a malformed reply says nothing about the next request."""
        self.timed_out_s = timed_out_s
        """The timeout the attempt ran out of; None when it failed otherwise."""
        self.usage = Usage()
        """Tokens the reply reported, when a reply came back (a 200 without choices)."""

    @staticmethod
    def says_overloaded(exc: BaseException) -> bool:
        """Whether `exc`, an attempt's failure, is an overload answer (`is_overload`)."""
        return isinstance(exc, AttemptFailed) and exc.is_overload


class Reply(NamedTuple):
    """The parts of a chat completion that rulebench keeps."""

    text: str
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int = 0
    """Of `completion_tokens`, those spent thinking (`completion_tokens_details`)."""
    warnings: tuple[str, ...] = ()
    """What had to change in the reply to keep it (see Completion.warnings)."""
    reasoning: str = ""
    """The thinking the server sent in its own field; think tags in `text` are split later."""
    cache: CacheReport | None = None
    """What the server says of its prefix cache for this prompt (`server_cache`)."""


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Read a wait from `retry-after-ms` (OpenAI) or `Retry-After` (seconds or an HTTP date)."""
    millis = _parse_seconds(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    value = headers.get("Retry-After")
    seconds = _parse_seconds(value)
    if seconds is not None or not value:
        return seconds
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _parse_seconds(value: str | None) -> float | None:
    try:
        seconds = float(value) if value else None
    except ValueError:
        return None
    return max(0.0, seconds) if seconds is not None and math.isfinite(seconds) else None


def server_message(raw: bytes) -> str:
    """The server's error message on one line, cut to about 200 characters, UTF-8 safe."""
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        error = error.get("message")
    text = error if isinstance(error, str) else raw.decode("utf-8", errors="replace")
    text = " ".join(repair_surrogates(text)[0].split())
    return text if len(text) <= DETAIL_CHARS else f"{text[:DETAIL_CHARS]}..."


def clean_server_text(text: str, secrets: tuple[str, ...]) -> str:
    """A server's text made safe to show, log and store: no secrets, no lone surrogates.

    The one choke point for every text a server sent (error bodies, reason phrases, exception
    strings that quote URLs): some servers echo the key or the Authorization header they got.
    """
    return scrub_secrets(repair_surrogates(text)[0], secrets)


def describe_connection_error(exc: BaseException) -> str:
    """Say in a few words why a connection failed ("Connection refused", "Server disconnected")."""
    if isinstance(exc, aiohttp.ClientConnectorError) and exc.strerror:
        return str(exc.strerror)
    return str(exc) or type(exc).__name__


async def read_at_most(response: aiohttp.ClientResponse, max_bytes: int) -> tuple[bytes, bool]:
    """Up to `max_bytes` of a body, and whether it was longer (then the rest is never read).

    A declared Content-Length over the limit is refused before reading; the count also holds
    for chunked and compressed bodies, which declare nothing (or less than they inflate to).
    """
    declared = response.content_length
    if declared is not None and declared > max_bytes:
        return b"", True
    body = bytearray()
    async for chunk in response.content.iter_any():
        body += chunk
        if len(body) > max_bytes:
            return bytes(body[:max_bytes]), True
    return bytes(body), False


def _api_reasoning(message: Mapping[str, object]) -> str:
    """The thinking a server sent beside the content, in whichever field it uses.

    `reasoning_content`: vLLM/SGLang's reasoning parsers, DeepSeek; `reasoning`: OpenRouter,
    newer vLLM.
    """
    for field in ("reasoning_content", "reasoning"):
        value = message.get(field)
        if isinstance(value, str) and value:
            return value
    return ""


def _reasoning_tokens(usage: Mapping[str, object]) -> int:
    details = usage.get("completion_tokens_details")
    value = details.get("reasoning_tokens") if isinstance(details, dict) else None
    return int(value or 0) if isinstance(value, int | float | str) else 0


def _keep(text: str, part: str, limits: tuple[int, tuple[str, ...]], warnings: list[str]) -> str:
    """A text the server sent, repaired, scrubbed and capped, each change said in `warnings`."""
    max_chars, secrets = limits
    text, repaired = repair_surrogates(text)
    if repaired:
        warnings.append(surrogate_warning(repaired, part))
    scrubbed = scrub_secrets(text, secrets)
    if scrubbed != text:
        text = scrubbed
        warnings.append(f"{part} held the API key or URL credentials, replaced by {REDACTED}")
    if len(text) > max_chars:
        text = text[:max_chars]
        warnings.append(f"{part} cut at {max_chars} characters (max_reply_chars)")
    return text


def parse_reply(
    raw: bytes,
    max_chars: int = 1_000_000,
    secrets: tuple[str, ...] = (),
    api: ApiKind = "chat",
) -> Reply:
    """Read the first choice and the token counts; a malformed body is a transient failure.

    Servers under load sometimes send truncated JSON or a 200 without choices; a retry
    usually gets a proper reply. The text (`message.content` for chat, `text` for
    completions) and the API's reasoning are each repaired (lone surrogates), scrubbed of
    `secrets` and cut at `max_chars`, each change recorded in `warnings`.
    """
    try:
        data = json.loads(raw)
        choice = data["choices"][0]
        usage = data.get("usage") or {}
        finish_reason = choice.get("finish_reason")
        message = choice["message"] if api == "chat" else {}
        content = message.get("content") if api == "chat" else choice["text"]
        text = str(content or "")
        reasoning = _api_reasoning(message)
        prompt_tokens = int(usage.get("prompt_tokens") or 0)
        completion_tokens = int(usage.get("completion_tokens") or 0)
        reasoning_tokens = _reasoning_tokens(usage)
        cache = read_cache_report(data)
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, OverflowError):
        # OverflowError: token counts of 1e400 (inf) cannot become ints.
        failed = AttemptFailed("malformed reply", server_message(raw), is_server_down=False)
        failed.usage = _reported_usage(raw)
        raise failed from None
    warnings: list[str] = []
    text = _keep(text, "reply", (max_chars, secrets), warnings)
    reasoning = _keep(reasoning, "reasoning", (max_chars, secrets), warnings)
    reason = None if finish_reason is None else repair_surrogates(str(finish_reason))[0]
    tokens = (prompt_tokens, completion_tokens, reasoning_tokens)
    return Reply(text, reason, *tokens, tuple(warnings), reasoning, cache)


def _reported_usage(raw: bytes) -> Usage:
    """The token counts of a reply that is otherwise unusable, when it has readable ones."""
    try:
        usage = json.loads(raw).get("usage") or {}
        return Usage(
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            reasoning_tokens=_reasoning_tokens(usage),
        )
    except (ValueError, TypeError, AttributeError, OverflowError):
        return Usage()


def is_cut_while_thinking(reply: Reply, answer: str) -> bool:
    """Whether the reply limit cut a reply with no answer yet after tokens spent thinking.

    OpenAI's reasoning models send no thinking, only its token count: such a reply is
    unfinished thinking as surely as an open think tag (which `split_reasoning` finds).
    """
    is_cut = reply.finish_reason == "length" and reply.reasoning_tokens > 0
    return is_cut and not answer.strip()
