"""What every playground page takes from a request, and the status a refused action answers.

Shared by the game pages (`play_pages`) and the collected cases (`collected_page`), so a
quota, a model failure and a visitor's mistake answer alike everywhere.
"""

from fastapi import Request

from rulebench.core.errors import ModelError, RulebenchError
from rulebench.web.playground.quotas import QuotaExceeded
from rulebench.web.playground.state import Playground


def playground_of(request: Request) -> Playground:
    """The app's playground (every visitor's conversations and models)."""
    playground: Playground = request.app.state.playground
    return playground


def error_status(exc: RulebenchError) -> int:
    """429 past a quota, 502 when the model failed, else 422: the visitor's input is at fault."""
    if isinstance(exc, QuotaExceeded):
        return 429
    return 502 if isinstance(exc, ModelError) else 422
