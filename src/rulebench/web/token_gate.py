"""An optional shared access token in front of the whole app (`rulebench serve --token`).

The explorer has no accounts. A server others reach can at least ask for one shared secret:
without it every page answers 401 with a short form; the token given once (the form, or
`?token=` in a link the operator hands out) sets an HttpOnly, SameSite=Lax cookie, so later
requests carry it and the token leaves the address bar. The cookie holds a digest of the
token, never the token itself. `Authorization: Bearer TOKEN` works for scripts. This is the
minimum: a reverse proxy with real authentication and TLS is the recommended setup (see the
red-teaming guide), as anyone who learns the token gets in, and plain HTTP carries it in the
clear.
"""

import hashlib
import hmac
import re
import secrets
from html import escape
from urllib.parse import parse_qsl, urlencode

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from rulebench.web.security import SECURITY_HEADERS, is_same_origin

ACCESS_COOKIE = "rulebench_access"
TOKEN_PATH = "/_token"
"""Where the form posts the token."""
MAX_TOKEN_CHARS = 512
MAX_FORM_BYTES = 4096
COOKIE_LIFETIME_S = 30 * 24 * 3600
SHARE_PAGE_PATH = re.compile(r"/play/shared/[A-Za-z0-9_-]{32,64}")
"""A share link's page: `/play/shared/` and its token, nothing more (no subpath, no query use)."""
SHARE_PAGE_STYLES = frozenset({"/static/report.css", "/static/web.css"})
"""The package's stylesheets a share page links (no data of the server in them)."""
_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Access token needed</title></head>
<body><h1>Access token needed</h1>
<p>This rulebench server is shared with a token. Ask whoever runs it for the token.</p>
{problem}<form method="post" action="{action}">
<input type="hidden" name="next" value="{next}">
<label for="token">Token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required>
<button type="submit">Enter</button></form></body></html>
"""


def is_share_page(method: str, path: str) -> bool:
    """Whether a request reads a share link's page or its stylesheets (let through the gate)."""
    if method not in ("GET", "HEAD"):
        return False
    return path in SHARE_PAGE_STYLES or SHARE_PAGE_PATH.fullmatch(path) is not None


def cookie_value(token: str) -> str:
    """What the access cookie holds: a keyed digest of the token (the token is never stored)."""
    return hmac.new(token.encode(), b"rulebench access cookie", hashlib.sha256).hexdigest()


class TokenGate:
    """Lets through requests that carry the token (cookie, bearer, `?token=`); 401 otherwise."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token
        self._cookie = cookie_value(token)

    def _matches(self, given: str | None) -> bool:
        return given is not None and secrets.compare_digest(given.encode(), self._token.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one ASGI connection."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        if is_share_page(request.method, request.url.path):
            await self.app(scope, receive, send)
            return
        cookie = request.cookies.get(ACCESS_COOKIE)
        if cookie is not None and secrets.compare_digest(cookie.encode(), self._cookie.encode()):
            await self.app(scope, receive, send)
            return
        bearer = request.headers.get("authorization", "")
        if bearer.lower().startswith("bearer ") and self._matches(bearer[7:].strip()):
            await self.app(scope, receive, send)
            return
        response = await self._answer(request)
        await response(scope, receive, send)

    async def _answer(self, request: Request) -> Response:
        """The token accepted (a cookie and a redirect), or the 401 form."""
        if request.url.path == TOKEN_PATH and request.method == "POST":
            if not is_same_origin(Headers(scope=request.scope), request.url.scheme):
                return _refused(
                    "refused: this request did not come from one of this app's own pages"
                )
            form = await _small_form(request)
            if form is None:
                return _refused("refused: the token form is small; this body is not")
            token, target = form.get("token", ""), form.get("next", "/")
            if self._matches(token[:MAX_TOKEN_CHARS]):
                return self._admit(_local_target(target))
            return _form(target, "That is not the token.")
        given = request.query_params.get("token")
        if request.method in ("GET", "HEAD") and self._matches(given):
            rest = [(k, v) for k, v in parse_qsl(request.url.query) if k != "token"]
            target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
            return self._admit(_local_target(target))
        next_url = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        problem = "That is not the token." if given is not None else None
        return _form(next_url, problem)

    def _admit(self, target: str) -> Response:
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(
            ACCESS_COOKIE,
            self._cookie,
            max_age=COOKIE_LIFETIME_S,
            path="/",
            httponly=True,
            # Lax, as the visitor cookie: a link from another site (a top-level GET) still
            # carries it; state changes are POSTs that SecurityMiddleware takes only from
            # the app's own pages.
            samesite="lax",
        )
        _secure(response)
        return response


async def _small_form(request: Request) -> dict[str, str] | None:
    """The posted fields, read up to MAX_FORM_BYTES (None past that: nothing more is read)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return None
    return dict(parse_qsl(body.decode("utf-8", "replace")))


def _local_target(target: str) -> str:
    """`target` if it is a path of this app, else "/" (no redirect to another site)."""
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target.split("#", 1)[0]


def _form(next_url: str, problem: str | None) -> Response:
    shown = f"<p><strong>{escape(problem)}</strong></p>\n" if problem else ""
    page = _PAGE.format(problem=shown, action=TOKEN_PATH, next=escape(_local_target(next_url)))
    response = HTMLResponse(page, status_code=401)
    response.headers["www-authenticate"] = 'Bearer realm="rulebench"'
    response.headers["cache-control"] = "no-store"
    _secure(response)
    return response


def _refused(message: str) -> Response:
    response = HTMLResponse(escape(message), status_code=403)
    _secure(response)
    return response


def _secure(response: Response) -> None:
    """The app's security headers: the gate answers before `SecurityMiddleware` runs."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)


def protect(app: ASGIApp, token: str | None) -> ASGIApp:
    """`app` behind the token gate, or `app` itself when there is no token."""
    return app if token is None else TokenGate(app, token)
