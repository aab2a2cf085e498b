"""A run's charts as inline SVG drawn on the server: no chart script, no outside request.

Scenario runs get pass-rate bars by scenario, by rule (behavior) and by red-team strategy,
each with the Wilson interval `rulebench report scenarios` prints (the same sums, added up in
SQL by `chart_rates`); inferential runs get the report's own charts (the rule-quantity curves, the
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
from typing import TYPE_CHECKING, NamedTuple

from markupsafe import Markup

from rulebench.core.items import ItemResult
from rulebench.report.bar_chart import Bar, draw_bars
from rulebench.report.kinds import ExtractMode
from rulebench.scenarios.scoring import CaseRecord, rates_by, to_records
from rulebench.web.explorer.chart_rates import Breakdown, Rates, sql_rates

if TYPE_CHECKING:
    from rulebench.engine.store.database import Store
    from rulebench.report.document import Chart

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


def scenario_charts(db: "Store", run_id: str) -> list[ChartView]:
    """Pass rate by scenario, rule and strategy, as `report scenarios` computes them.

    Summed in SQL (`chart_rates`), else (a record the report cannot read, a case under two
    spellings of a strategy) from every result, as the report reads them. Cases without a
    strategy (benign and basic ones) are left out of that chart, as in the report; errors are
    neither passes nor failures.
    """
    rates = sql_rates(db, run_id)
    if rates is None:
        rates = record_rates(db.iter_outcomes(run_id))
    return rate_charts(rates)


def record_rates(results: Iterable[ItemResult]) -> Rates:
    """The breakdowns' rates the report's way: every result read into a record."""
    records = to_records(results)
    rates: Rates = {}
    for field, _ in BREAKDOWNS:
        having = [r for r in records if getattr(r, field) is not None]
        by = rates_by(having, partial(_key, field))
        rates[field] = {label: rate for (label,), rate in by.items()}
    return rates


def rate_charts(rates: Rates) -> list[ChartView]:
    """One bar chart per breakdown; a breakdown without groups says so."""
    charts = []
    for field, title in BREAKDOWNS:
        bars = [Bar(label, rate) for label, rate in rates.get(field, {}).items()]
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
    """The inferential report's charts for one run, scored in extraction mode `extract`.

    Only the two sections that draw (rule quantity, capability dimensions), from the records
    the report reads: the rest of the report (its prompt-echo baseline generates the task's
    data again) took most of a 1,280-item run's charts page and draws nothing.
    """
    from rulebench.inferential.analysis import to_records
    from rulebench.report.build import run_label, runs_of
    from rulebench.report.inferential import dimension_section, quantity_section

    [run] = runs_of(db, [run_id], "inferential")
    runs = [(run_label(run, [run.model]), to_records(db.iter_results(run.id), extract))]
    sections = (quantity_section(runs), dimension_section(runs))
    return [report_chart(chart) for section in sections for chart in section.charts]
