"""The playground's pages: start a game, talk turn by turn, save the case, list and re-open.

`/play` the new-game form, `/play/conversations/{id}` a conversation (POST `/send`, `/undo`,
`/edit`, `/regenerate`, `/save`, and `/share`, `/unshare` from `shared_page`, which also
serves the read-only `/play/shared/{token}`), `/play/saved` the save folder's cases (POST
`/play/saved/open`). State changes are POSTs of plain forms, so `SecurityMiddleware` refuses
them from any page but the app's own; each answer is a redirect to the page to show (a reload
sends nothing twice), or the page again with the problem when nothing was done.
"""

import pathlib
from collections.abc import Coroutine, Mapping
from functools import partial
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError

from rulebench.core.errors import ConfigError, RulebenchError
from rulebench.core.json_text import parse_json_text
from rulebench.scenarios.play import replay_command
from rulebench.web.paging import MAX_PAGE
from rulebench.web.playground.forms import read_form
from rulebench.web.playground.game_setup import GameSetup
from rulebench.web.playground.play_controls import controls, lane_index, recorded_form, turn_number
from rulebench.web.playground.play_request import error_status, playground_of
from rulebench.web.playground.play_view import (
    conversation_url,
    conversation_view,
    new_game_view,
)
from rulebench.web.playground.saved_cases import find_saved, labelled, save_case, user_turns
from rulebench.web.playground.saved_page import saved_listing
from rulebench.web.playground.shared_page import ConversationId, shared_url
from rulebench.web.playground.shared_page import router as share_router
from rulebench.web.playground.state import (
    MAX_MESSAGE_CHARS,
    MAX_USER_TURNS,
    Conversation,
    Playground,
    new_token,
)
from rulebench.web.playground.turns import edit_turn, regenerate_reply, send_turn, undo_turn
from rulebench.web.playground.visitors import may_give_visitor, set_visitor, visitor_of
from rulebench.web.shown_paths import shown_path
from rulebench.web.templating import render_page

router = APIRouter(prefix="/play")
router.include_router(share_router)

MAX_PARAMS_CHARS = 20_000
SavedPage = Annotated[int, Query(ge=1, le=MAX_PAGE)]


def _page(
    request: Request, template: str, context: Mapping[str, object], status: int = 200
) -> HTMLResponse:
    base = {"store": request.app.state.store_label}
    return render_page(template, {**base, **context}, status)


@router.get("", response_class=HTMLResponse)
def new_game(request: Request) -> HTMLResponse:
    """The new-game form, and the visitor's conversations so far."""
    playground = playground_of(request)
    visitor = visitor_of(request)
    context = {"title": "Playground", "problem": None}
    response = _page(request, "play_new.html", context | new_game_view(playground, visitor, {}))
    if visitor is None and may_give_visitor(request):
        set_visitor(response, new_token())
    return response


@router.post("", response_class=HTMLResponse)
async def start_game(request: Request) -> Response:
    """Start a game from the form; the form again, with the problem, if it cannot start."""
    playground = playground_of(request)
    form = await read_form(request)
    visitor = visitor_of(request) or new_token()
    try:
        conversation = await playground.start(visitor, _setup(form, playground))
    except RulebenchError as exc:
        view = new_game_view(playground, visitor, form)
        problem = playground.hide_secrets(str(exc))
        context = {"title": "Playground", "problem": problem} | view
        return _page(request, "play_new.html", context, error_status(exc))
    return _to(conversation, visitor, visitor_of(request) is None)


@router.get("/saved", response_class=HTMLResponse)
def saved_cases(request: Request, page: SavedPage = 1) -> HTMLResponse:
    """The save folder's files and their cases, each with a button to play it again."""
    playground = playground_of(request)
    config = playground.config
    context = {
        "title": "Saved test cases",
        "problem": None,
        **saved_listing(config.save_dir, config.show_paths, page),
    } | new_game_view(playground, visitor_of(request), {})
    return _page(request, "play_saved.html", context)


@router.post("/saved/open", response_class=HTMLResponse)
async def open_saved(request: Request) -> Response:
    """A saved case in a new conversation: its parameters, its turns replayed to the model."""
    playground = playground_of(request)
    form = await read_form(request)
    visitor = visitor_of(request) or new_token()
    file_name, _, case_id = form.get("case", "").partition("/")
    try:
        case = find_saved(playground.config.save_dir, file_name, case_id)
        turns = user_turns(case)
        playground.limits.check_fits(turns, f"case {case.id}")
        played = {"scenario": case.scenario, "seed": "", "model_b": ""} | recorded_form(case)
        setup = _setup(form | played, playground, case.params)
        conversation = await playground.start(visitor, setup, f"{file_name}, case {case.id}")
    except RulebenchError as exc:
        config = playground.config
        context = {
            "title": "Saved test cases",
            "problem": playground.hide_secrets(str(exc)),
            **saved_listing(config.save_dir, config.show_paths),
        } | new_game_view(playground, visitor, form)
        return _page(request, "play_saved.html", context, error_status(exc))
    async with conversation.lock:
        try:
            playground.limits.check_model_call(visitor, turns)
            await conversation.play.replay(case)
        except RulebenchError as exc:
            conversation.notice = playground.hide_secrets(f"the replay stopped: {exc}")
        await playground.persist(conversation)
    return _to(conversation, visitor, visitor_of(request) is None)


@router.get("/conversations/{conversation_id}", response_class=HTMLResponse)
async def conversation_page(request: Request, conversation_id: ConversationId) -> HTMLResponse:
    """The conversation: instructions (redacted), turns, both verdicts, the rule that broke."""
    playground = playground_of(request)
    return _conversation(request, await playground.find(conversation_id, visitor_of(request)))


@router.post("/conversations/{conversation_id}/send", response_class=HTMLResponse)
async def send(request: Request, conversation_id: ConversationId) -> Response:
    """Send one user turn and get the reply, unless the turn is malformed (then no call)."""
    playground = playground_of(request)
    conversation = await playground.find(conversation_id, visitor_of(request))
    text = (await read_form(request)).get("message", "")
    async with conversation.lock:
        problem = _problem_with(conversation, text)
        if problem is not None:
            return _conversation(request, conversation, problem=problem, draft=text, status=422)
        try:
            await send_turn(playground, conversation, text)
        except RulebenchError as exc:
            shown = playground.hide_secrets(f"no reply: {exc}")
            status = error_status(exc)
            return _conversation(request, conversation, problem=shown, draft=text, status=status)
    return RedirectResponse(conversation_url(conversation.id), status_code=303)


@router.post("/conversations/{conversation_id}/undo", response_class=HTMLResponse)
async def undo(request: Request, conversation_id: ConversationId) -> Response:
    """Take back the last user turn and its replies (every lane); verdicts recomputed."""
    playground = playground_of(request)
    conversation = await playground.find(conversation_id, visitor_of(request))
    async with conversation.lock:
        return await _act(request, conversation, undo_turn(playground, conversation))


@router.post("/conversations/{conversation_id}/edit", response_class=HTMLResponse)
async def edit(request: Request, conversation_id: ConversationId) -> Response:
    """Replace a user turn: the conversation is cut there and the new text is sent."""
    playground = playground_of(request)
    conversation = await playground.find(conversation_id, visitor_of(request))
    form = await read_form(request)
    text, number = form.get("message", ""), turn_number(form.get("turn", ""))
    async with conversation.lock:
        problem = _text_problem(conversation, text)
        if problem is not None:
            return _conversation(request, conversation, problem=problem, status=422)
        return await _act(request, conversation, edit_turn(playground, conversation, number, text))


@router.post("/conversations/{conversation_id}/regenerate", response_class=HTMLResponse)
async def regenerate(request: Request, conversation_id: ConversationId) -> Response:
    """Ask one lane's model again for its last reply (past the cache, a new sampling seed)."""
    playground = playground_of(request)
    conversation = await playground.find(conversation_id, visitor_of(request))
    index = lane_index(conversation, (await read_form(request)).get("lane", ""))
    async with conversation.lock:
        action = regenerate_reply(playground, conversation, index)
        return await _act(request, conversation, action)


async def _act(
    request: Request, conversation: Conversation, action: Coroutine[None, None, None]
) -> Response:
    """Run an action on the turns; the page again, with the problem, if it failed."""
    try:
        await action
    except RulebenchError as exc:
        shown = playground_of(request).hide_secrets(f"not done: {exc}")
        return _conversation(request, conversation, problem=shown, status=error_status(exc))
    return RedirectResponse(conversation_url(conversation.id), status_code=303)


@router.post("/conversations/{conversation_id}/save", response_class=HTMLResponse)
async def save(request: Request, conversation_id: ConversationId) -> Response:
    """Append the conversation's user turns to a file of the save folder as a test case."""
    playground = playground_of(request)
    conversation = await playground.find(conversation_id, visitor_of(request))
    form = await read_form(request)
    name = form.get("file", "").strip() or None
    lane = conversation.lanes[lane_index(conversation, form.get("lane", ""))]
    play, save_dir = lane.play, playground.config.save_dir
    # Under the lock: the case saved is the one the page showed, not a turn sent meanwhile.
    async with conversation.lock:
        try:
            if not play.turns:
                raise ConfigError("nothing to save yet: send a message first")
            case = labelled(
                play.test_case(play.broken_behavior()),
                form.get("strategy", ""),
                form.get("notes", ""),
                lane.model_spec,
                broke=not play.verdict.passed,
            )
            allow = partial(playground.limits.check_save, conversation.visitor)
            path = save_case(case, save_dir, name, allow)
        except RulebenchError as exc:
            problem = playground.hide_secrets(f"not saved: {exc}")
            return _conversation(request, conversation, problem=problem, status=error_status(exc))
        shown = pathlib.Path(shown_path(path, playground.config.show_paths))
        conversation.notice = playground.hide_secrets(
            f"saved test case {case.id} ({case.behavior}, {case.category}) to {shown}; "
            f"replay it with: {replay_command(case, shown, lane.model_spec, play.protocol)}"
        )
    return RedirectResponse(conversation_url(conversation.id), status_code=303)


def _setup(form: dict[str, str], playground: Playground, params: object | None = None) -> GameSetup:
    """The form's game settings, checked; ConfigError naming the field that does not fit."""
    if params is None and form.get("params", "").strip():
        text = form["params"]
        if len(text) > MAX_PARAMS_CHARS:
            raise ConfigError(f"parameters: longer than {MAX_PARAMS_CHARS} characters")
        params, _ = parse_json_text(text, "parameters")
        if not isinstance(params, dict):
            raise ConfigError('parameters: expected a JSON object, e.g. {"secret": "abc"}')
    seed = form.get("seed", "").strip()
    raw = {
        "scenario": form.get("scenario", ""),
        "seed": seed or None,
        "params": params,
        "model": form.get("model", "").strip() or playground.config.model,
        "placement": form.get("placement", "user"),
        "mode": form.get("mode", "compat"),
        "prompts": form.get("prompts", "rulebench"),
    } | controls(form)
    try:
        return GameSetup.model_validate(raw)
    except ValidationError as exc:
        fields = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ConfigError(fields) from None


def _problem_with(conversation: Conversation, text: str) -> str | None:
    """Why a turn is not sent: the game is over, the turn is too long, or malformed."""
    if not conversation.playing():
        return "a rule broke in this game's mode: the game is over (save it, or start a new one)"
    if conversation.user_turns >= MAX_USER_TURNS:
        return f"a game has at most {MAX_USER_TURNS} turns: save it, or start a new one"
    return _text_problem(conversation, text)


def _text_problem(conversation: Conversation, text: str) -> str | None:
    """Why a typed turn cannot be sent in this game (too long, or malformed), or None."""
    if len(text) > MAX_MESSAGE_CHARS:
        return f"a message holds at most {MAX_MESSAGE_CHARS} characters ({len(text)} typed)"
    return conversation.play.problem_with(text)


def _conversation(
    request: Request,
    conversation: Conversation,
    problem: str | None = None,
    draft: str = "",
    status: int = 200,
) -> HTMLResponse:
    """The conversation's page; a notice left by the last action is shown this once."""
    notice, conversation.notice = conversation.notice, None
    view = conversation_view(playground_of(request), conversation, draft)
    token = conversation.share_token
    context = {
        "title": f"Play {view['scenario']}",
        "c": view,
        "problem": problem,
        "notice": notice,
        "share_url": None if token is None else shared_url(request, token),
    }
    return _page(request, "play.html", context, status)


def _to(conversation: Conversation, visitor: str, is_new_visitor: bool) -> RedirectResponse:
    response = RedirectResponse(conversation_url(conversation.id), status_code=303)
    if is_new_visitor:
        set_visitor(response, visitor)
    return response
