"""The bodies the mock OpenAI server answers with: chat completions and plain-text completions.

Kept apart from the server so what a reply holds (text cut at max_tokens words, usage counted
in words, stop sequences applied as real servers apply them) reads on its own.
"""

import json
import re
import time
from collections.abc import Callable
from typing import Any, Literal

from rulebench.testing.mock_reasoning_api import reply_limit

ThinkingStyle = Literal["tags", "preopened", "reasoning_content", "reasoning", "hidden"]
"""How the server sends a reply's `<think>...</think>` block: left in the content, in the
content after a tag the template opened (only `</think>` appears), in an API field, or not at
all (`hidden`: only its token count, as OpenAI's reasoning models)."""

_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.DOTALL)

ReplyFn = Callable[[dict[str, Any]], str]
"""Makes the reply text from the request body (chat: messages; completions: prompt)."""


def echo_last_user(body: dict[str, Any]) -> str:
    """The default chat reply: the content of the last user message."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


def echo_prompt(body: dict[str, Any]) -> str:
    """The default completion: a space, then the prompt itself (cut at its stop sequences)."""
    return f" {body.get('prompt') or ''}"


def _cut(words: list[str], max_tokens: int) -> tuple[str, str, int]:
    """The text of at most max_tokens words, the finish reason and the words kept."""
    kept = words[:max_tokens]
    return " ".join(kept), "length" if len(words) > max_tokens else "stop", len(kept)


def _usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def _message(content: str, style: ThinkingStyle) -> tuple[dict[str, Any], int]:
    """The assistant message sending `content`'s first think block as `style` says.

    Also the words of that block (the reasoning tokens); without a block, the content as is.
    """
    match = _THINK.search(content)
    if match is None:
        return {"role": "assistant", "content": content}, 0
    thinking = match.group(1)
    words = len(thinking.split())
    if style == "tags":
        return {"role": "assistant", "content": content}, words
    if style == "preopened":
        return {"role": "assistant", "content": content.replace("<think>", "", 1)}, words
    # As vLLM's reasoning parsers do: thinking in its field; no answer yet is a null content.
    answer = (content[: match.start()] + content[match.end() :]).strip()
    if style == "hidden":  # OpenAI's reasoning models: an empty string before any answer
        return {"role": "assistant", "content": answer}, words
    return {"role": "assistant", "content": answer or None, style: thinking.strip()}, words


def chat_reply_bytes(
    body: dict[str, Any],
    text: str,
    suffix: str = "",
    thinking: ThinkingStyle = "tags",
    extra: dict[str, Any] | None = None,
) -> bytes:
    """A chat completion of `text`; `suffix` is added to its content after the max_tokens cut.

    A think block in `text` counts in the max_tokens cut, so a small limit leaves the thinking
    unfinished; its words are reported as `completion_tokens_details.reasoning_tokens`. `extra`
    adds top-level fields, and fields of `usage` under its "usage" key (a cache report).
    """
    words = text.split(" ")
    content, finish_reason, kept = _cut(words, reply_limit(body) or len(words))
    prompt_tokens = sum(len(str(m.get("content") or "").split()) for m in body["messages"])
    message, reasoning_tokens = _message(content + suffix, thinking)
    usage: dict[str, Any] = _usage(prompt_tokens, kept)
    if reasoning_tokens:
        usage["completion_tokens_details"] = {"reasoning_tokens": reasoning_tokens}
    data = {
        "id": "chatcmpl-mock",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "mock"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish_reason,
            }
        ],
        "usage": usage,
    }
    extra = dict(extra or {})
    usage.update(extra.pop("usage", {}))
    return json.dumps(data | extra).encode()


def completion_reply_bytes(body: dict[str, Any], text: str, suffix: str = "") -> bytes:
    """A text completion of `text`, cut where the request's first stop sequence begins.

    As vLLM and OpenAI do, the stop sequence itself is not part of the text, and a cut there
    finishes with "stop"; otherwise the max_tokens cut (in words) applies.
    """
    stops = body.get("stop") or []
    cuts = [text.find(stop) for stop in ([stops] if isinstance(stops, str) else stops)]
    cut_at = min((at for at in cuts if at >= 0), default=-1)
    if cut_at >= 0:
        text = text[:cut_at]
    words = text.split(" ")
    content, finish_reason, kept = _cut(words, int(body.get("max_tokens") or len(words)))
    data = {
        "id": "cmpl-mock",
        "object": "text_completion",
        "created": int(time.time()),
        "model": body.get("model", "mock"),
        "choices": [
            {
                "index": 0,
                "text": content + suffix,
                "finish_reason": "stop" if cut_at >= 0 else finish_reason,
                "logprobs": None,
            }
        ],
        "usage": _usage(len(str(body.get("prompt") or "").split()), kept),
    }
    return json.dumps(data).encode()
