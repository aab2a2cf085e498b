"""A run's charts as inline SVG drawn on the server: no chart script, no outside request.

Scenario runs get pass-rate bars by scenario, by rule (behavior) and by red-team strategy,
each with the Wilson interval `rulebench report scenarios` prints (the same `rates_by` over the
same records); inferential runs get the report's own charts (the rule-quantity curves, the
capability radar), drawn by `report.plots` and made CSP-clean here.

The pages' Content-Security-Policy forbids inline styles, so an SVG may carry no `style`
attribute or element: matplotlib's styles become presentation attributes (fill="..."), and our
bars are styled by class from web.css. This is the one place the explorer marks HTML as safe
(`Markup`): every SVG is serialized by ElementTree (which escapes all text and attributes)
after `_checked` has allowed its elements and attributes one by one.
"""

import threading
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Literal, NamedTuple

from markupsafe import Markup

from rulebench.core.items import ItemResult
from rulebench.report.bar_chart import Bar, draw_bars
from rulebench.report.kinds import ExtractMode
from rulebench.scenarios.scoring import CaseRecord, rates_by, to_records

if TYPE_CHECKING:
    from rulebench.engine.store import Store
    from rulebench.report.document import Chart

Breakdown = Literal["scenario", "behavior", "strategy"]
BREAKDOWNS: tuple[tuple[Breakdown, str], ...] = (
    ("scenario", "Pass rate by scenario"),
    ("behavior", "Pass rate by rule (behavior)"),
    ("strategy", "Pass rate by red-team strategy"),
)
"""The scenario charts, as the report's "By scenario/behavior/strategy" sections."""

_DRAWING = threading.Lock()
"""Held while a matplotlib chart is drawn (see `report_chart`)."""
_ALLOWED = {
    "svg": {"width", "height", "viewBox", "version", "role", "aria-labelledby", "class"},
    "title": {"id"},
    "g": {"class", "clip-path", "transform", "data-label"},
    "defs": set(),
    "clipPath": {"id"},
    "path": {"d", "clip-path", "transform", "id"},
    "use": {"href", "x", "y", "transform"},
    "rect": {"x", "y", "width", "height", "class", "clip-path", "transform"},
    "line": {"x1", "y1", "x2", "y2", "class"},
    "text": {"x", "y", "class", "text-anchor", "dominant-baseline"},
}
"""Every element an SVG may hold, with the attributes it may carry besides `_PAINT`."""
_PAINT = frozenset(
    {
        "fill",
        "fill-opacity",
        "stroke",
        "stroke-width",
        "stroke-opacity",
        "stroke-linecap",
        "stroke-linejoin",
        "stroke-dasharray",
        "stroke-dashoffset",
        "stroke-miterlimit",
        "opacity",
        "fill-rule",
        "clip-rule",
    }
)
"""Presentation attributes: what matplotlib's inline styles become."""


class ChartView(NamedTuple):
    """One chart of a page: its heading, the SVG, and what the page says when it is empty."""

    title: str
    svg: Markup | None
    """None when nothing could be drawn (`empty` says why)."""
    empty: str = ""


def scenario_charts(results: Iterable[ItemResult]) -> list[ChartView]:
    """Pass rate by scenario, rule and strategy, as `report scenarios` computes them.

    Cases without a strategy (benign and basic ones) are left out of that chart, as in the
    report; errors are neither passes nor failures.
    """
    records = to_records(results)
    charts = []
    for field, title in BREAKDOWNS:
        having = [r for r in records if getattr(r, field) is not None]
        by = rates_by(having, partial(_key, field))
        bars = [Bar(label, rate) for (label,), rate in by.items()]
        if bars:
            charts.append(ChartView(title, bar_chart(bars, f"chart-{field}", title)))
        else:
            charts.append(ChartView(title, None, f"No case of this run has a {field}."))
    return charts


def _key(field: Breakdown, record: CaseRecord) -> tuple[str]:
    """A record's group in one breakdown, as the report names it."""
    return (str(getattr(record, field)),)


def bar_chart(bars: Sequence[Bar], name: str, title: str) -> Markup:
    """Pass-rate bars (`report.bar_chart.draw_bars`), checked and marked safe for the page."""
    return _markup(draw_bars(bars, name, title))


def report_chart(chart: "Chart") -> ChartView:
    """One of the report's matplotlib charts as a CSP-clean inline SVG.

    One chart at a time: matplotlib's settings (`rc_context`) are global to the process, and
    pages are drawn in the server's worker threads.
    """
    from rulebench.report.plots import inline_svg

    with _DRAWING:
        figure = chart.draw()
        svg = inline_svg(figure, f"chart-{chart.stem}")
    root = ElementTree.fromstring(svg)
    _unstyle(root)
    root.set("class", "figure")
    root.set("role", "img")
    return ChartView(chart.title, _markup(root))


def _unstyle(element: ElementTree.Element) -> None:
    """Drop `<style>` elements and turn `style` attributes into presentation attributes."""
    for child in list(element):
        if child.tag == "style":
            element.remove(child)
        else:
            _unstyle(child)
    declarations = element.attrib.pop("style", "")
    for declaration in declarations.split(";"):
        name, _, value = declaration.partition(":")
        if name.strip() in _PAINT and value.strip():
            element.set(name.strip(), value.strip())
    if element.tag == "svg":
        # What matplotlib's dropped stylesheet said of every element (both are inherited).
        element.set("stroke-linejoin", "round")
        element.set("stroke-linecap", "butt")


def _markup(svg: ElementTree.Element) -> Markup:
    return Markup(
        ElementTree.tostring(_checked(svg), encoding="unicode")
    )  # safe: see the module docstring


def _checked(element: ElementTree.Element) -> ElementTree.Element:
    """The element when it and everything in it are allowed; ValueError naming what is not."""
    allowed = _ALLOWED.get(element.tag)
    if allowed is None:
        raise ValueError(f"chart SVG: element <{element.tag}> is not allowed")
    for name, value in element.attrib.items():
        if name not in allowed and name not in _PAINT:
            raise ValueError(f"chart SVG: attribute {name} of <{element.tag}> is not allowed")
        if name == "href" and not value.startswith("#"):
            raise ValueError(f"chart SVG: <{element.tag}> links outside the chart")
    for child in element:
        _checked(child)
    return element


def inferential_charts(db: "Store", run_id: str, extract: ExtractMode) -> list[ChartView]:
    """The inferential report's charts for one run, scored in extraction mode `extract`."""
    from rulebench.report.build import inferential_report

    built = inferential_report(db, [run_id], extract=extract, render=True)
    document = built.document
    charts = (
        [chart for section in document.sections for chart in section.charts] if document else []
    )
    return [report_chart(chart) for chart in charts]
