"""A report as one self-contained HTML page: its sections, run configurations and items.

The page loads nothing and runs nothing: CSS is inline, charts are inline SVG, there is no
script, and a Content-Security-Policy says so to the browser too. Model replies and data
text are outside text: the template escapes everything it is given (Jinja autoescape), the
sections' Markdown goes through markdown-it with raw HTML, links and images switched off,
and configurations are redacted (`report.redaction`) before they are shown.
"""

import json
import re
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from markupsafe import Markup
from pydantic import JsonValue

from rulebench.core.items import ItemResult
from rulebench.core.version import __version__
from rulebench.engine.store.records import RunRecord
from rulebench.report.bar_chart import bar_chart_svg
from rulebench.report.document import Document, Section
from rulebench.report.plots import inline_svg
from rulebench.report.redaction import redact_config
from rulebench.report.untrusted import escape_controls

if TYPE_CHECKING:
    from jinja2 import Environment
    from markdown_it import MarkdownIt

# What a summary line shows of an extracted answer; the whole answer is in the item.
_SUMMARY_ANSWER_CHARS = 60


class RunAppendix(NamedTuple):
    """What the page shows of one run beside the report: its configuration and items."""

    run: RunRecord
    status: str
    """The effective status (a "running" run whose process is gone is "interrupted")."""
    items: Sequence[ItemResult]
    """The items shown: the run's first ones, in the order they finished."""
    total: int
    """How many results the run has, shown or not."""


def render_html(document: Document, runs: Sequence[RunAppendix]) -> str:
    """The whole page as one string, ready to be written to a `.html` file."""
    page = _environment().get_template("report.html")
    return page.render(
        title=document.title,
        version=__version__,
        sections=[_section(number, s) for number, s in enumerate(document.sections)],
        runs=[_run(number, appendix) for number, appendix in enumerate(runs)],
    )


@cache
def _environment() -> "Environment":
    from jinja2 import Environment, PackageLoader, StrictUndefined

    environment = Environment(
        loader=PackageLoader("rulebench.report", "templates"),
        autoescape=True,  # every value is text unless it is Markup made in this module
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["visible"] = escape_controls
    return environment


@cache
def _markdown() -> "MarkdownIt":
    from markdown_it import MarkdownIt

    # Outside text in the bodies is escaped Markdown already (report.markdown); switching off
    # raw HTML, links, autolinks and images makes sure that no text can become a tag or a link.
    return (
        MarkdownIt("commonmark", {"html": False})
        .enable("table")
        .disable(["html_block", "html_inline", "link", "image", "autolink", "reference"])
    )


def _section(number: int, section: Section) -> dict[str, object]:
    anchor = re.sub(r"[^a-z0-9]+", "-", section.heading.lower()).strip("-")
    return {
        "anchor": f"section-{number}-{anchor}" if anchor else "",
        "heading": section.heading,
        # The only Markup on the page: markdown-it's escaped output and SVG built by plots
        # and bar_chart (ElementTree escapes every text and attribute it writes).
        "body": Markup(_markdown().render(section.body)),
        "charts": [
            *[
                {"title": bars.title, "svg": Markup(bar_chart_svg(bars))}
                for bars in section.bar_charts
            ],
            *[
                {"title": chart.title, "svg": Markup(inline_svg(chart.draw(), chart.stem))}
                for chart in section.charts
            ],
        ],
    }


def _run(number: int, appendix: RunAppendix) -> dict[str, object]:
    run = appendix.run
    return {
        "anchor": f"run-{number}",
        "id": run.id,
        "task": run.task,
        "model": run.model,
        "status": appendix.status,
        "version": run.version,
        "started_at": run.started_at,
        "ended_at": run.ended_at or "-",
        "config": _json(redact_config(run.config)),
        "notes": _json(redact_config(run.notes)) if run.notes else "",
        "shown": [_item(result) for result in appendix.items],
        "left_out": appendix.total - len(appendix.items),
        "total": appendix.total,
    }


def _item(result: ItemResult) -> dict[str, object]:
    messages = list(result.messages)
    if result.reply is not None and messages and messages[-1].content == result.reply:
        messages.pop()  # the transcript ends with the reply, shown on its own
    outcome = result.outcome
    return {
        "id": result.item_id,
        "summary": _verdict(result),
        "messages": [
            {"role": m.role, "content": m.content, "reasoning": m.reasoning} for m in messages
        ],
        "reply": result.reply,
        "reasoning": result.reasoning,
        "is_reasoning_unfinished": result.is_reasoning_unfinished,
        "error": result.error,
        "answer": None if outcome is None else outcome.answer,
        "score": None if outcome is None or outcome.score is None else f"{outcome.score:g}",
        "passed": None if outcome is None or outcome.passed is None else str(outcome.passed),
        "reason": None if outcome is None else outcome.reason,
        "details": _json(outcome.details) if outcome is not None and outcome.details else "",
        "metadata": _json(result.metadata) if result.metadata else "",
    }


def _verdict(result: ItemResult) -> str:
    """The item's summary line: passed/failed, correct/wrong, or error, and the answer.

    A reply whose thinking was cut short says so first: its verdict judged no answer.
    """
    outcome = result.outcome
    if outcome is None:
        return "error"
    parts = ["thinking cut short"] if result.is_reasoning_unfinished else []
    if outcome.passed is not None:
        parts.append("passed" if outcome.passed else "failed")
    elif outcome.score is not None:
        named = {1.0: "correct", 0.0: "wrong"}
        parts.append(named.get(outcome.score, f"score {outcome.score:g}"))
    else:
        parts.append("not counted")
    if outcome.answer is not None:
        answer = outcome.answer
        if len(answer) > _SUMMARY_ANSWER_CHARS:
            answer = answer[: _SUMMARY_ANSWER_CHARS - 1] + "…"
        parts.append(f"answer: {answer}")
    return "; ".join(parts)


def _json(value: JsonValue) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)
