"""Share links: a read-only copy of one playground conversation for whoever holds the link.

A conversation's page answers only the browser that started it (its visitor cookie), which is
right for playing. The owner's POST `/play/conversations/{id}/share` keeps a copy of the page
(`shared_view`: taken now, cleared of secrets) under a random 256-bit token, and
`/play/shared/{token}` shows it to anyone, with no cookie. That page is only text: it has no
form, no route takes a share token in a POST, and nothing there loads or calls a model or
counts against a quota. `/unshare` (the owner's "Stop sharing") deletes the copy, and the link
answers 404 from then on. With `serve --token`, the token gate lets share pages through
(`token_gate.is_share_page`): the link is itself the capability, and opens that one copy only.
"""

import asyncio
from typing import Annotated

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from rulebench.web.playground.play_request import playground_of
from rulebench.web.playground.play_view import conversation_url
from rulebench.web.playground.shared_view import SharedConversation, shared_copy
from rulebench.web.playground.state import NoConversation, new_share_token
from rulebench.web.playground.visitors import visitor_of
from rulebench.web.templating import render_page
from rulebench.web.token_gate import SHARE_PAGE_PATH

SHARED_PREFIX = "/play/shared/"
ConversationId = Annotated[str, Path(max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]

router = APIRouter()
"""Mounted under `/play` by `play_pages`."""


def shared_url(request: Request, token: str) -> str:
    """The share link in full, as the owner copies it (this server's address as asked)."""
    return str(request.base_url).rstrip("/") + SHARED_PREFIX + token


@router.post("/conversations/{conversation_id}/share", response_class=HTMLResponse)
async def share(request: Request, conversation_id: ConversationId) -> Response:
    """Share a copy of the conversation as it is now (again: the same link, a fresh copy)."""
    playground = playground_of(request)
    conversation = await playground.find(conversation_id, visitor_of(request))
    async with conversation.lock:  # the copy is of the page shown, not of a turn sent meanwhile
        page = shared_copy(playground, conversation).model_dump_json()
        was_shared = conversation.share_token is not None
        conversation.share_token = await asyncio.to_thread(
            playground.store.share, new_share_token(), conversation.id, conversation.visitor, page
        )
    conversation.notice = (
        "the shared copy now shows the conversation as it is: the link is the same"
        if was_shared
        else "shared: anyone with the link below sees a read-only copy of the conversation "
        "as it is now; share again after more turns to update it"
    )
    return RedirectResponse(conversation_url(conversation.id), status_code=303)


@router.post("/conversations/{conversation_id}/unshare", response_class=HTMLResponse)
async def stop_sharing(request: Request, conversation_id: ConversationId) -> Response:
    """Revoke the conversation's share link: it answers 404 from now on."""
    playground = playground_of(request)
    conversation = await playground.find(conversation_id, visitor_of(request))
    async with conversation.lock:
        await asyncio.to_thread(playground.store.stop_sharing, conversation.id)
        conversation.share_token = None
    conversation.notice = "stopped sharing: the link opens nothing now"
    return RedirectResponse(conversation_url(conversation.id), status_code=303)


@router.get("/shared/{token}", response_class=HTMLResponse)
async def shared_page(request: Request, token: Annotated[str, Path(max_length=200)]) -> Response:
    """The shared copy the token opens; 404 for a token that opens nothing (or no longer)."""
    page = None
    if SHARE_PAGE_PATH.fullmatch(SHARED_PREFIX + token):  # the gate's rule: one shape
        page = await asyncio.to_thread(playground_of(request).store.shared_page, token)
    if page is None:
        raise NoConversation("no such shared conversation: the link is wrong or was revoked")
    copy = SharedConversation.model_validate_json(page)
    context = {"title": f"Shared: {copy.scenario}", "store": "shared conversation", "c": copy}
    response = render_page("shared.html", context)
    # Revoking must work: no browser or proxy keeps the copy; no search engine lists it.
    response.headers["cache-control"] = "no-store"
    response.headers["x-robots-tag"] = "noindex, nofollow"
    return response
