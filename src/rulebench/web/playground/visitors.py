"""Who is playing: a random token in a cookie, so each browser sees its own conversations only.

The token is no login: it tells apart the people sharing one server, and a conversation's
page answers only the browser that started it, even to someone who learns its address. The
cookie is HttpOnly (no script reads it) and SameSite=Lax: a link from another site (a chat, a
wiki) brings the visitor back to its games, while no other site's form or script carries it
(state changes are POSTs, which `SecurityMiddleware` also refuses from other origins). It
lasts `VISITOR_DAYS` days: conversations are kept on disk, so a visitor returns to its games
after closing the browser or a server restart.
"""

import re

from starlette.requests import Request
from starlette.responses import Response

VISITOR_COOKIE = "rulebench_visitor"
VISITOR_DAYS = 30
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")


def visitor_of(request: Request) -> str | None:
    """The visitor token the request carries, or None (none, or not one of ours)."""
    token = request.cookies.get(VISITOR_COOKIE)
    return token if token is not None and _TOKEN.fullmatch(token) else None


def may_give_visitor(request: Request) -> bool:
    """Whether a request without the cookie may be handed a new one.

    Not when another site made the request (an embedded frame, a prefetch): the browser may
    hold a cookie it did not send, and a new one would replace it, losing the visitor's games.
    """
    return request.headers.get("sec-fetch-site", "same-origin") != "cross-site"


def set_visitor(response: Response, token: str) -> None:
    """Give the browser its visitor token."""
    response.set_cookie(
        VISITOR_COOKIE,
        token,
        max_age=VISITOR_DAYS * 24 * 3600,
        path="/play",
        httponly=True,
        samesite="lax",
    )
