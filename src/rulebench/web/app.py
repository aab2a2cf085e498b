"""The explorer as an ASGI app: `create_app(store)` for uvicorn (`rulebench serve`) and tests.

Pages: `/` runs, `/runs/{id}` a run (live while it runs), `/runs/{id}/items/{item}` an item,
`/compare?a=..&b=..` two runs; JSON: `/api/runs/{id}/progress`, `/api/compare`; the
playground under `/play` (`play_pages`). The app may read several stores as one
(`engine.store.store_set`): the list shows every store's runs and a run's pages read the store that
holds it. Every page reads the stores read-only, and the
playground writes only to its save folder; the app loads nothing from outside itself (its CSS
and its one script are package files), so it works offline.
"""

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from functools import cache
from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exception_handlers import (
    http_exception_handler,
    request_validation_exception_handler,
)
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, Response
from starlette.exceptions import HTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from rulebench.core.errors import RulebenchError
from rulebench.engine.store.store_set import StoreSet, expand_store_paths
from rulebench.web.explorer import (
    charts_page,
    compare_page,
    item_page,
    live,
    run_page,
    runs_page,
    search_page,
)
from rulebench.web.explorer.views import NotFound, hide_store_path
from rulebench.web.head import HeadAsGet
from rulebench.web.playground import collected_page, play_pages
from rulebench.web.playground.config import PlaygroundConfig
from rulebench.web.playground.forms import FormError
from rulebench.web.playground.state import GameUnavailable, NoConversation, Playground
from rulebench.web.security import LOOPBACK_NAMES, SECURITY_HEADERS, SecurityMiddleware
from rulebench.web.shown_paths import shown_path
from rulebench.web.templating import render_page

# name -> (package, file in it, media type): the only files the app serves.
_STATIC = {
    "report.css": ("rulebench.report", "templates/report.css", "text/css; charset=utf-8"),
    "web.css": ("rulebench.web", "static/web.css", "text/css; charset=utf-8"),
    "live.js": ("rulebench.web", "static/live.js", "text/javascript; charset=utf-8"),
    "favicon.svg": ("rulebench.web", "static/favicon.svg", "image/svg+xml"),
    "item-keys.js": ("rulebench.web", "static/item-keys.js", "text/javascript; charset=utf-8"),
    "item-nav.css": ("rulebench.web", "static/item-nav.css", "text/css; charset=utf-8"),
}


def create_app(
    store: Path | str | Sequence[Path | str],
    hosts: Sequence[str] = LOOPBACK_NAMES,
    playground: PlaygroundConfig | None = None,
    show_paths: bool = True,
) -> FastAPI:
    """The explorer of the store at `store` (or of several, each a file or a folder of them).

    The stores must exist and be readable: a missing, damaged or foreign file is a
    StoreError here, before anything is served, and so is a run id two stores hold with
    different content. `hosts` ("*" for any) defends a loopback bind against DNS
    rebinding (see `security`). `playground` sets the playground's default model and save
    folder (default: the embedded model, ./rulebench-cases); models load on first use; it
    reads the cache of the first store. `show_paths` False (a server others reach) shows
    files by name only, never the server's absolute paths.
    """
    given = [store] if isinstance(store, Path | str) else list(store)
    paths = expand_store_paths([Path(path) for path in given])
    with StoreSet.open(paths) as stores:  # fail now, with the store's own message
        stores.check_shared_runs()
    players = Playground(playground or PlaygroundConfig(), paths[0])

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        await players.aclose()

    app = FastAPI(
        title="rulebench explorer",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        lifespan=lifespan,
    )
    labels = store_labels(paths, show_paths)
    app.state.store_paths = paths
    app.state.store_labels = labels
    app.state.store_path = paths[0]  # the playground's and collected runs' store
    app.state.store_label = ", ".join(labels.values())
    app.state.show_paths = show_paths
    app.state.playground = players
    # The playground's state changes are POSTs, which SecurityMiddleware accepts only from
    # the app's own pages.
    pages = (runs_page, run_page, item_page, charts_page, compare_page, live, play_pages)
    for module in (*pages, search_page, collected_page):
        app.include_router(module.router)
    app.add_api_route("/static/{name}", static_file, methods=["GET"], include_in_schema=False)
    # Browsers ask for /favicon.ico where a page names no icon (a JSON answer, say).
    app.add_api_route("/favicon.ico", favicon, methods=["GET"], include_in_schema=False)
    app.add_exception_handler(HTTPException, _no_route)
    app.add_exception_handler(NotFound, _not_found)
    app.add_exception_handler(NoConversation, _not_found)
    app.add_exception_handler(GameUnavailable, _unavailable)
    app.add_exception_handler(FormError, _bad_form)
    app.add_exception_handler(RequestValidationError, _bad_query)
    app.add_exception_handler(RulebenchError, _store_failed)
    app.add_exception_handler(Exception, _crashed)
    app.add_middleware(HeadAsGet)  # innermost: the others see HEAD as it came
    app.add_middleware(SecurityMiddleware)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))
    return app


def store_labels(paths: Sequence[Path], show_paths: bool) -> dict[Path, str]:
    """How pages name each store; names alike (shards' stores by name only) get a number."""
    shown = [shown_path(path, show_paths) for path in paths]
    return {
        path: label if shown.count(label) == 1 else f"{label} ({index})"
        for index, (path, label) in enumerate(zip(paths, shown, strict=True), 1)
    }


def static_file(name: str) -> Response:
    """One of the app's own CSS or script files (404 for any other name)."""
    if name not in _STATIC:
        return Response("not found", status_code=404, media_type="text/plain")
    # Only the icon is cached: the CSS and script change with the installed rulebench.
    cached = {"cache-control": f"max-age={_ICON_CACHE_S}"} if name == "favicon.svg" else {}
    return Response(_read_static(name), media_type=_STATIC[name][2], headers=cached)


def favicon() -> Response:
    """The app's icon, served locally (the CSP's img-src 'self' allows it)."""
    return static_file("favicon.svg")


_ICON_CACHE_S = 86_400
"""How long a browser keeps the icon: it then asks once per server, not on every page."""


@cache
def _read_static(name: str) -> bytes:
    package, resource, _ = _STATIC[name]
    return files(package).joinpath(resource).read_bytes()


_TITLES = {
    409: "Cannot go on here",
    404: "Not found",
    405: "Not a page of the explorer",
    422: "Not a page of the explorer",
    400: "Not a form of the playground",
    413: "Too large",
    415: "Not a form of the playground",
}


def _error_page(request: Request, status_code: int, message: str) -> HTMLResponse:
    context = {
        "title": _TITLES.get(status_code, "Error"),
        "store": request.app.state.store_label,
        "message": hide_store_path(request, message),
    }
    return render_page("error.html", context, status_code)


async def _no_route(request: Request, exc: Exception) -> Response:
    """An address no page answers (or a method it does not take): the site's error page.

    Paths under /api/ keep FastAPI's JSON errors, for scripts.
    """
    if not isinstance(exc, HTTPException):
        raise exc
    if request.url.path.startswith("/api/"):
        return await http_exception_handler(request, exc)
    message = {
        404: f"no page of the explorer at {request.url.path}",
        405: f"{request.url.path} does not take a {request.method} request",
    }.get(exc.status_code, str(exc.detail))
    page = _error_page(request, exc.status_code, message)
    page.headers.update(exc.headers or {})
    return page


async def _not_found(request: Request, exc: Exception) -> Response:
    return _error_page(request, 404, str(exc))


async def _unavailable(request: Request, exc: Exception) -> Response:
    return _error_page(request, 409, str(exc))


async def _bad_form(request: Request, exc: Exception) -> Response:
    status_code = exc.status_code if isinstance(exc, FormError) else 400
    return _error_page(request, status_code, str(exc))


async def _bad_query(request: Request, exc: Exception) -> Response:
    """A page asked with a parameter it cannot take (page=0, verdict=maybe): say which."""
    if not isinstance(exc, RequestValidationError):
        raise exc
    if request.url.path.startswith("/api/"):
        return await request_validation_exception_handler(request, exc)  # JSON for scripts
    problems = "; ".join(
        f"{'.'.join(str(part) for part in error['loc'][1:])}: {error['msg']}"
        for error in exc.errors()
    )
    return _error_page(request, 422, f"this address does not fit the page: {problems}")


async def _store_failed(request: Request, exc: Exception) -> Response:
    return _error_page(request, 500, str(exc))


async def _crashed(request: Request, exc: Exception) -> Response:
    """A bug: an error page that says nothing of the internals, with the security headers.

    Starlette answers unhandled exceptions outside every middleware, so SecurityMiddleware
    never sees this response: its headers are set here.
    """
    page = _error_page(request, 500, "the server failed on this page; its log says why")
    page.headers.update(SECURITY_HEADERS)
    return page
