"""The mock server's o-series mode: the parameters OpenAI's reasoning models refuse, and how.

o1, o3, o4-mini and gpt-5 answer 400 to `max_tokens` (they take `max_completion_tokens`) and
to a temperature or top_p other than their default, 1. This mode refuses the same requests
with OpenAI's own wording and error fields, so the backend's adaptation is tested against
what it must recognise, not against a convenient paraphrase.
"""

from typing import Any

from aiohttp import web

DEFAULT_SAMPLING = 1.0
"""The only temperature and top_p the reasoning models take."""
_SAMPLING_PARAMS = ("temperature", "top_p")


def _refusal(param: str, code: str, message: str) -> web.Response:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    return web.json_response({"error": error}, status=400)


def refuse_unsupported(body: dict[str, Any]) -> web.Response | None:
    """OpenAI's 400 for the first parameter of `body` a reasoning model refuses, else None.

    Checked in OpenAI's order: `max_tokens` first, then the sampling parameters.
    """
    if "max_tokens" in body:
        return _refusal(
            "max_tokens",
            "unsupported_parameter",
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
        )
    for param in _SAMPLING_PARAMS:
        value = body.get(param)
        if isinstance(value, int | float) and float(value) != DEFAULT_SAMPLING:
            return _refusal(
                param,
                "unsupported_value",
                f"Unsupported value: '{param}' does not support {value:g} with this model. "
                f"Only the default ({DEFAULT_SAMPLING:g}) value is supported.",
            )
    return None


def reply_limit(body: dict[str, Any]) -> int | None:
    """The reply limit a request sets, under either name (every OpenAI model takes both)."""
    value = body.get("max_completion_tokens") or body.get("max_tokens")
    return int(value) if value else None
