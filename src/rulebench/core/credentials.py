"""Credentials kept out of what is stored and shown: URL user:password and query, echoed secrets.

Pure string rules, apart from any backend, because the engine stores URLs (a run's
`--base-url`) and the CLI prints command lines: both must hide the same things the HTTP
backend hides. `redact_url` is the one place a URL is made fit to store or show.
"""

import re
from typing import Literal

REDACTED = "***"
"""What stands for a secret in stored URLs and in server texts."""

UserInfo = Literal["mark", "drop"]
"""What `redact_url` leaves of user:password@: ***@, or nothing."""

# The userinfo at the start of every URL of a comma list: everything from after "scheme://"
# (or the start of the text, or a comma) to the last "@" before the first "/", "?" or "#", as
# urlsplit finds it, but never raising, so that even a URL urlsplit rejects can be shown
# without its password. A match may span commas (a password may hold one), so a list is never
# split wrongly into a URL that shows half a password; at worst a little more is hidden.
_LIST_USERINFO = re.compile(
    r"(?:^|(?<=,))(?P<space>\s*)(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://|//)?(?P<userinfo>[^/?#]*)@"
)
# Where a comma list of URLs splits: at a comma followed by the next URL's scheme (the
# backend splits there too). Captured, so that re.split keeps the separators.
_NEXT_URL = re.compile(r"(\s*,\s*(?=[A-Za-z][A-Za-z0-9+.\-]*://))")


def redact_url(url: str, userinfo: UserInfo = "mark") -> str:
    """A URL, or a comma list of URLs, fit to store or show: no credentials, no query values.

    user:password@ becomes ***@ with "mark" (stored URLs: the backend refuses a resumed run's
    URL whose credentials were redacted, so it cannot silently go out without them) or goes
    with "drop" (identities and messages: the same with or without credentials). Every query
    value becomes *** (`?api_key=***`; a part without "=" as a whole), and so does a fragment:
    a key may ride in either. Never raises; a URL with neither is returned as it is.
    """
    if userinfo == "mark":
        text = _LIST_USERINFO.sub(lambda m: f"{m['space']}{m['head'] or ''}{REDACTED}@", url)
    else:
        text = _LIST_USERINFO.sub(lambda m: f"{m['space']}{m['head'] or ''}", url)
    pieces = _NEXT_URL.split(text)  # URL, separator, URL, ...
    return "".join(p if i % 2 else _redact_query(p) for i, p in enumerate(pieces))


def query_start(url: str) -> int:
    """Where a URL's query or fragment begins ("?" or "#"); its length when it has neither."""
    found = [at for at in (url.find("?"), url.find("#")) if at >= 0]
    return min(found, default=len(url))


def query_values(url: str) -> tuple[str, ...]:
    """The values of a URL's query parts (a part without "=" whole) and its fragment."""
    query, _, fragment = url[query_start(url) :].partition("#")
    parts = query.removeprefix("?").split("&") if query else []
    values = [part.partition("=")[2] if "=" in part else part for part in parts]
    return tuple(value for value in (*values, fragment) if value)


def _redact_query(url: str) -> str:
    start = query_start(url)
    query, hashmark, fragment = url[start:].partition("#")
    if query:
        query = "?" + "&".join(_redact_part(part) for part in query[1:].split("&"))
    return f"{url[:start]}{query}{hashmark}{REDACTED if fragment else ''}"


def _redact_part(part: str) -> str:
    name, equals, value = part.partition("=")
    if equals:
        return f"{name}={REDACTED}" if value else part
    return REDACTED if part else part


def scrub_secrets(text: str, secrets: tuple[str, ...]) -> str:
    """`text` with every secret replaced by ***; `secrets` longest first, so none shows half."""
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text
