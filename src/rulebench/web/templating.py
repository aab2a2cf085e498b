"""The explorer's pages: one Jinja environment that escapes everything, and links that keep state.

Every value a template gets is text: Jinja's autoescape turns `<`, `&` and quotes into
entities, and the `visible` filter shows control characters as escapes, so a reply holding
`<script>`, an attribute or a Markdown link shows as those characters and makes nothing. No
value is ever marked safe (`Markup`) here. Filters and page numbers live in query strings,
built by `query_url`, so a page survives a reload and its URL can be shared.
"""

import json
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING
from urllib.parse import quote, urlencode

from fastapi.responses import HTMLResponse
from pydantic import JsonValue

from rulebench.core.version import __version__
from rulebench.report.untrusted import escape_controls
from rulebench.scenarios.played import STRATEGIES

if TYPE_CHECKING:
    from jinja2 import Environment

EXCERPT_CHARS = 160
"""What a table cell shows of a reply or answer; the item page shows all of it."""


@cache
def _environment() -> "Environment":
    from jinja2 import Environment, PackageLoader, StrictUndefined

    environment = Environment(
        loader=PackageLoader("rulebench.web", "templates"),
        autoescape=True,  # nothing is marked safe: every value is shown as text
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["visible"] = escape_controls
    environment.filters["excerpt"] = excerpt
    environment.filters["thousands"] = thousands
    environment.globals["version"] = __version__
    environment.globals["strategies"] = STRATEGIES  # the save form's red-team strategies
    return environment


def render_page(
    template: str, context: Mapping[str, object], status_code: int = 200
) -> HTMLResponse:
    """A page from `templates/<template>`; `context` holds text and plain data only."""
    html = _environment().get_template(template).render(**context)
    return HTMLResponse(html, status_code=status_code)


def excerpt(text: str | None, limit: int = EXCERPT_CHARS) -> str:
    """The start of a text on one line, cut with an ellipsis ("" for None)."""
    if text is None:
        return ""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def thousands(value: object) -> str:
    """A count as pages show it, 12,345 (the live page's script writes counts the same way).

    Anything but an integer (a "-" for no value, a text) is shown as it is.
    """
    is_count = isinstance(value, int) and not isinstance(value, bool)
    return f"{value:,}" if is_count else str(value)


def pretty_json(value: JsonValue) -> str:
    """JSON as the pages show it: indented, non-ASCII kept."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def query_url(path: str, params: Mapping[str, object]) -> str:
    """`path` with the non-empty `params` as its query string (None and "" left out)."""
    kept = {name: str(value) for name, value in params.items() if value not in (None, "")}
    return f"{path}?{urlencode(kept)}" if kept else path


def run_url(run_id: str) -> str:
    """The run's page."""
    return f"/runs/{quote(run_id, safe='')}"


def item_url(run_id: str, item_id: str) -> str:
    """One item's page in a run."""
    return f"{run_url(run_id)}/items/{quote(item_id, safe='')}"
