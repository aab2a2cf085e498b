"""Pass-rate bars with their 95% intervals as an SVG element, drawn without matplotlib.

The explorer's charts page and the HTML report draw the same bars from the same rates, so
both show what `rulebench report scenarios` prints. The SVG holds no style: bars, whiskers and
text are styled by class (the explorer's CSP forbids inline styles), and every text is set
through ElementTree, which escapes it. Runs set side by side (`Bar.series`) share a label
and get a legend; a chart of one run looks as it always did.
"""

import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from typing import NamedTuple

from rulebench.report.untrusted import escape_controls
from rulebench.scenarios.scoring import Rate


class Bar(NamedTuple):
    """One row of a bar chart: a label and its rate with interval."""

    label: str
    rate: Rate
    series: str = ""
    """The run this bar stands for where runs are side by side; "" in a one-run chart."""


class BarChart(NamedTuple):
    """A bar chart of a report section, drawn when the page is rendered."""

    name: str
    """Unique on the page: it prefixes the SVG's ids ("chart-scenario")."""
    title: str
    bars: tuple[Bar, ...]
    """In the order drawn; a label's bars (one per run) next to each other."""


_LABEL_W, _PLOT_W, _VALUE_W, _ROW_H, _TOP, _BOTTOM = 230, 400, 230, 22, 26, 8
_LEGEND_H, _GROUP_GAP = 18, 6
SERIES_COLOURS = 8
"""The stylesheets colour `series-0` to `series-7`; a ninth run takes the first colour again."""


def draw_bars(bars: Sequence[Bar], name: str, title: str) -> ElementTree.Element:
    """Horizontal bars (0-100%) with the interval as a whisker and the report's text beside."""
    series = list(dict.fromkeys(bar.series for bar in bars if bar.series))
    tops = _row_tops(bars, _TOP + _LEGEND_H * len(series))
    height = (tops[-1] + _ROW_H if tops else _TOP) + _BOTTOM
    width = _LABEL_W + _PLOT_W + _VALUE_W
    svg = ElementTree.Element(
        "svg",
        {
            "viewBox": f"0 0 {width} {height}",
            "role": "img",
            "aria-labelledby": f"{name}-title",
            "class": "bars",
        },
    )
    ElementTree.SubElement(svg, "title", {"id": f"{name}-title"}).text = escape_controls(title)
    axis = ElementTree.SubElement(svg, "g", {"class": "axis"})
    for percent in (0, 25, 50, 75, 100):
        x = _x(percent / 100)
        bottom = height - _BOTTOM
        ElementTree.SubElement(axis, "line", _points(x, _TOP - 4, x, bottom, "grid"))
        tick = ElementTree.SubElement(axis, "text", {"x": f"{x:.1f}", "y": "14", "class": "tick"})
        tick.set("text-anchor", "middle")
        tick.text = f"{percent}%"
    if series:
        _legend(svg, series)
    for index, (bar, top) in enumerate(zip(bars, tops, strict=True)):
        is_first = index == 0 or bars[index - 1].label != bar.label
        _bar_row(svg, bar, top, series.index(bar.series) if bar.series else None, is_first)
    return svg


def bar_chart_svg(chart: BarChart) -> str:
    """The chart as an `<svg>` element's text, to paste into an HTML page."""
    return ElementTree.tostring(draw_bars(chart.bars, chart.name, chart.title), encoding="unicode")


def _row_tops(bars: Sequence[Bar], first: float) -> list[float]:
    """Where each row starts: a gap between labels when runs are side by side."""
    tops, top = [], first
    for index, bar in enumerate(bars):
        if index and bar.series and bars[index - 1].label != bar.label:
            top += _GROUP_GAP
        tops.append(top)
        top += _ROW_H
    return tops


def _legend(svg: ElementTree.Element, series: Sequence[str]) -> None:
    """Which colour is which run, one line each above the bars."""
    legend = ElementTree.SubElement(svg, "g", {"class": "legend"})
    for index, label in enumerate(series):
        middle = _TOP + _LEGEND_H * index + _LEGEND_H / 2
        swatch = {"x": str(_LABEL_W), "y": f"{middle - 5:.1f}", "width": "10", "height": "10"}
        ElementTree.SubElement(legend, "rect", {**swatch, "class": _series_class(index)})
        text = ElementTree.SubElement(
            legend, "text", {"x": str(_LABEL_W + 16), "y": f"{middle:.1f}", "class": "series"}
        )
        text.set("dominant-baseline", "middle")
        text.text = escape_controls(label)


def _bar_row(
    svg: ElementTree.Element, bar: Bar, top: float, series: int | None, is_first: bool
) -> None:
    """One bar; beside runs set side by side, only a label's first bar names it."""
    # Control characters are shown as escapes, as every page shows them (and XML forbids them).
    shown = escape_controls(bar.label)
    row = ElementTree.SubElement(svg, "g", {"class": "row", "data-label": shown})
    if series is not None:
        row.set("data-series", escape_controls(bar.series))
    middle = top + _ROW_H / 2
    if is_first:
        label = ElementTree.SubElement(
            row, "text", {"x": str(_LABEL_W - 8), "y": f"{middle:.1f}", "class": "label"}
        )
        label.set("text-anchor", "end")
        label.set("dominant-baseline", "middle")
        label.text = _shortened(shown)
    rate = bar.rate
    bar_width = max(_x(rate.value) - _LABEL_W, 0.0)
    ElementTree.SubElement(
        row,
        "rect",
        {
            "x": str(_LABEL_W),
            "y": f"{top + 4:.1f}",
            "width": f"{bar_width:.1f}",
            "height": str(_ROW_H - 8),
            "class": "bar" if series is None else _series_class(series),
        },
    )
    low, high = _x(rate.low), _x(rate.high)
    ElementTree.SubElement(row, "line", _points(low, middle, high, middle, "ci"))
    for end in (low, high):
        ElementTree.SubElement(row, "line", _points(end, middle - 5, end, middle + 5, "ci"))
    value = ElementTree.SubElement(
        row, "text", {"x": str(_LABEL_W + _PLOT_W + 10), "y": f"{middle:.1f}", "class": "value"}
    )
    value.set("dominant-baseline", "middle")
    value.text = rate.format()


def _series_class(series: int) -> str:
    return f"bar series-{series % SERIES_COLOURS}"


def _x(fraction: float) -> float:
    return _LABEL_W + _PLOT_W * min(max(fraction, 0.0), 1.0)


def _points(x1: float, y1: float, x2: float, y2: float, kind: str) -> dict[str, str]:
    return {
        "x1": f"{x1:.1f}",
        "y1": f"{y1:.1f}",
        "x2": f"{x2:.1f}",
        "y2": f"{y2:.1f}",
        "class": kind,
    }


def _shortened(label: str, limit: int = 34) -> str:
    """A label that fits the label column; the row's data-label keeps it whole."""
    return label if len(label) <= limit else label[: limit - 1] + "…"
