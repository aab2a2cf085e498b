"""Secrets taken out of stored configurations before a report shows them.

The engine keeps keys out of the store (they come from the environment; a --base-url's
password is stored as ***), but a run's config holds whatever `-M key=value`, a task config,
an older version or another writer put there. A report may be mailed or published, so what
it shows of a config is redacted here first: values under secret-sounding names, URL
credentials, and Bearer/Basic tokens in any text. Stored data is never changed.
"""

import re

from pydantic import JsonValue

REDACTED = "***"

# Whole words of a key's name (api_key, apiKey, X-Api-Key, hf_token...): "max_tokens" or
# "keyword" hold no secret word, so a generation setting is never hidden.
_SECRET_WORDS = frozenset(
    {
        "apikey",
        "key",
        "token",
        "password",
        "passwd",
        "pwd",
        "secret",
        "authorization",
        "auth",
        "credential",
        "credentials",
        "cookie",
    }
)
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
_URL_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*://)[^/?#\s@]+@")
_QUERY_SECRET = re.compile(
    r"(?P<name>[?&](?:api[_-]?key|key|token|access[_-]?token|password|secret|sig)=)[^&#\s]+",
    re.IGNORECASE,
)
_AUTH_SCHEME = re.compile(r"(?P<scheme>\b(?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=\-]+", re.IGNORECASE)


def is_secret_name(name: str) -> bool:
    """Whether a config key names a secret: one of its words is key, token, password..."""
    words = [word.lower() for word in _WORD.findall(name)]
    return any(word in _SECRET_WORDS for word in words) or "apikey" in "".join(words)


def redact_text(text: str) -> str:
    """`text` with URL user:password, secret query parameters and Bearer/Basic tokens as ***."""
    text = _URL_USERINFO.sub(lambda m: f"{m.group('scheme')}{REDACTED}@", text)
    text = _QUERY_SECRET.sub(lambda m: f"{m.group('name')}{REDACTED}", text)
    return _AUTH_SCHEME.sub(lambda m: f"{m.group('scheme')}{REDACTED}", text)


def redact_config(value: JsonValue) -> JsonValue:
    """A stored config (any JSON) with every secret replaced by ***; the shape is kept.

    Under a secret-named key every text is hidden, however deep; numbers, booleans and null
    stay (a `token_budget` of 512 or an unset key hides nothing).
    """
    if isinstance(value, dict):
        return {
            key: _hidden(item) if is_secret_name(key) else redact_config(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [redact_config(item) for item in value]
    if isinstance(value, str):
        return redact_text(value)
    return value


def _hidden(value: JsonValue) -> JsonValue:
    if isinstance(value, dict):
        return {key: _hidden(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_hidden(item) for item in value]
    return REDACTED if isinstance(value, str) else value
