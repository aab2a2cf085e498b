"""Credentials kept out of what is stored and shown: URL user:password and echoed secrets.

Pure string rules, apart from any backend, because the engine stores URLs (a run's
`--base-url`) and the CLI prints command lines: both must hide the same things the HTTP
backend hides.
"""

import re

REDACTED = "***"
"""What stands for a secret in stored URLs and in server texts."""

# The userinfo of a URL: everything from after "scheme://" (or the start) to the last "@"
# before the first "/", "?" or "#", as urlsplit finds it, but never raising, so that even a
# URL urlsplit rejects can be shown without its password.
_USERINFO = re.compile(r"^(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://|//)?(?P<userinfo>[^/?#]*)@")
# The same at the start of every URL of a comma list: at the start of the text or after any
# comma. A match may span commas (a password may hold one), so a list is never split wrongly
# into a URL that shows half a password; at worst a little more than the userinfo is hidden.
_LIST_USERINFO = re.compile(
    r"(?:^|(?<=,))(?P<space>\s*)(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://|//)?(?P<userinfo>[^/?#]*)@"
)


def redact_url(url: str) -> str:
    """Drop any user:password@ from a URL (for identities, messages and logs)."""
    return _USERINFO.sub(lambda match: match.group("head") or "", url, count=1)


def redact_url_credentials(url: str) -> str:
    """Replace a URL's user:password@ by ***@, keeping the fact that it had credentials.

    For URLs that are stored (a run's --base-url): the password never reaches the store, and
    the backend refuses a URL whose credentials were redacted, so a resumed run cannot
    silently go out without them. A URL without credentials is returned as it is. A comma list
    of URLs (several replicas) has the credentials of each of its URLs replaced.
    """
    return _LIST_USERINFO.sub(
        lambda match: f"{match.group('space')}{match.group('head') or ''}{REDACTED}@", url
    )


def scrub_secrets(text: str, secrets: tuple[str, ...]) -> str:
    """`text` with every secret replaced by ***; `secrets` longest first, so none shows half."""
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text
