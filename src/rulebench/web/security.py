"""What keeps the explorer local and inert: who may reach it, what pages may do and request.

- Host: bound to loopback, the app answers only requests addressed to a loopback name, so a
  web page that rebinds its own domain name to 127.0.0.1 (DNS rebinding) cannot read the store.
- Content-Security-Policy on every response: scripts, styles and fetches from the app itself
  only; no inline script, no plugin, no frame; forms post back to the app alone.
- Cross-site requests: a request that may change state (anything but GET, HEAD, OPTIONS)
  must come from one of the app's own pages. Another local page (another port on 127.0.0.1
  is "same-site", not "same-origin") gets 403. The playground's forms (start a game, send a
  turn, save, play a saved case again) are such requests.
"""

import ipaddress
from collections.abc import Sequence

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rulebench.web.clients import client_address

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}


def is_loopback(host: str) -> bool:
    """Whether binding `host` serves this machine only (localhost, 127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to any interface


def allowed_hosts(bind_host: str) -> Sequence[str]:
    """The Host headers the app answers: loopback names for a loopback bind, any otherwise."""
    if not is_loopback(bind_host):
        return ["*"]
    own = f"[{bind_host}]" if ":" in bind_host else bind_host
    return sorted({*LOOPBACK_NAMES, own.lower()})


def is_same_origin(headers: Headers, scheme: str) -> bool:
    """Whether a request says it comes from a page of this app.

    Browsers set Sec-Fetch-Site and Origin themselves (no page can forge them); a request
    carrying neither (an old browser, a script) is not taken as proof of anything.
    """
    site = headers.get("sec-fetch-site")
    if site is not None:
        return site == "same-origin"
    origin = headers.get("origin")
    host = headers.get("host")
    return origin is not None and host is not None and origin == f"{scheme}://{host}"


class SecurityMiddleware:
    """Adds the security headers to every response and refuses cross-site state changes."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one ASGI connection."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        client = scope.get("client")
        # Quotas count per client address too (a visitor may drop its cookie).
        client_address.set(client[0] if client else None)
        headers = Headers(scope=scope)
        if scope["method"] not in SAFE_METHODS and not is_same_origin(headers, scope["scheme"]):
            refused = PlainTextResponse(
                "refused: this request did not come from one of this app's own pages", 403
            )
            await refused(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)
