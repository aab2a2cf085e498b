"""A report as data: a title and sections of Markdown, each followed by its charts.

One document becomes report.md (charts saved as PNG and SVG beside it) or one HTML page
(charts inline), so both show the same sections with the same numbers. Bar charts of pass
rates are drawn in the HTML page only: their numbers are the section's table, which the
Markdown holds already.
"""

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from rulebench.report.bar_chart import BarChart
from rulebench.report.plots import save_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure


class Chart(NamedTuple):
    """A figure of a section, drawn only when the report is written."""

    stem: str
    """File name without suffix ("rule_quantity"); also names the figure in HTML."""
    title: str
    """What the chart shows, in words: the image's alt text, the figure's caption."""
    draw: Callable[[], "Figure"]


class Section(NamedTuple):
    """One part of a report: a heading, a Markdown body, then the body's charts."""

    heading: str
    """Empty for text before the first heading (warnings, how to read the numbers)."""
    body: str
    """Markdown in which every outside text is already escaped (`report.markdown`)."""
    charts: tuple[Chart, ...] = ()
    bar_charts: tuple[BarChart, ...] = ()
    """The table's rates as bars with their intervals; drawn in the HTML page only."""


class Document(NamedTuple):
    """A whole report."""

    title: str
    sections: tuple[Section, ...]


def to_markdown(document: Document, folder: Path | None = None) -> str:
    """The report as Markdown; charts are saved into `folder` and linked, or left out without one.

    Args:
        document: the report.
        folder: where `<stem>.png` and `<stem>.svg` of each chart go (it must exist).
    """
    parts = [f"# {document.title}"]
    for section in document.sections:
        text = f"## {section.heading}\n\n{section.body}" if section.heading else section.body
        if folder is not None:
            text += "".join(f"\n\n{_linked(chart, folder)}" for chart in section.charts)
        parts.append(text)
    return "\n\n".join(parts) + "\n"


def write_markdown(document: Document, folder: Path) -> Path:
    """Write `folder`/report.md with the charts beside it (the folder is made); return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "report.md"
    path.write_text(to_markdown(document, folder), encoding="utf-8")
    return path


def _linked(chart: Chart, folder: Path) -> str:
    png, svg = save_figure(chart.draw(), folder / chart.stem)
    return f"![{chart.title}]({png.name}) ([SVG]({svg.name}))"
