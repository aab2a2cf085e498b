"""Plots as PNG and SVG files or inline SVG: the rule-quantity curve, the radar, a loss curve.

The report's figures are built as `Figure` objects (no pyplot: no global figure list to leak
into, safe in a worker thread), then saved as files beside report.md or inlined in HTML.
"""

import io
import math
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from rulebench.report.untrusted import escape_plot_label

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

# Elements and attributes an inline SVG may not keep: they run code, load something or
# carry the creator's metadata (which names matplotlib's web site).
_DROPPED_ELEMENTS = frozenset({"metadata", "script", "foreignObject", "a", "image"})
_REFERENCE = re.compile(r"url\(#([^)]+)\)")


def save_figure(figure: "Figure", path_stem: Path) -> list[Path]:
    """Write the figure as `<stem>.png` and `<stem>.svg`; return both paths."""
    paths = [path_stem.with_suffix(".png"), path_stem.with_suffix(".svg")]
    for path in paths:
        figure.savefig(path, bbox_inches="tight", dpi=150)
    return paths


def inline_svg(figure: "Figure", name: str) -> str:
    """The figure as an `<svg>` element to paste into an HTML page; no file is written.

    Only drawing elements are kept: no XML prologue, namespaces, metadata, scripts, event
    handlers or links other than to the figure's own `#ids`. Those ids start with `name`
    (unique on the page): two figures would otherwise both define "DejaVuSans-31".
    """
    import matplotlib

    buffer = io.BytesIO()
    # A fixed salt makes matplotlib's hashed ids, and so the page, the same on every build.
    with matplotlib.rc_context({"svg.hashsalt": name, "svg.fonttype": "path"}):
        figure.savefig(buffer, format="svg", bbox_inches="tight")
    root = ElementTree.fromstring(buffer.getvalue())
    _strip(root)
    used = {ref for element in root.iter() for ref in _references(element)}
    for element in root.iter():
        _relink(element, used, f"{name}-")
    return ElementTree.tostring(root, encoding="unicode")


def _strip(element: ElementTree.Element) -> None:
    """Drop namespaces and whatever an inline SVG must not hold (`_DROPPED_ELEMENTS`)."""
    for child in list(element):
        if _local(child.tag) in _DROPPED_ELEMENTS:
            element.remove(child)
        else:
            _strip(child)
    element.tag = _local(element.tag)
    for name in list(element.attrib):
        value = element.attrib.pop(name)
        local = _local(name)
        if local.lower().startswith("on") or (local == "href" and not value.startswith("#")):
            continue
        element.set(local, value)  # xlink:href becomes SVG 2's plain href


def _local(name: str) -> str:
    return name.rpartition("}")[2]


def _references(element: ElementTree.Element) -> list[str]:
    found = [ref for value in element.attrib.values() for ref in _REFERENCE.findall(value)]
    href = element.get("href", "")
    return [*found, href[1:]] if href.startswith("#") else found


def _relink(element: ElementTree.Element, used: set[str], prefix: str) -> None:
    """Prefix the ids something links to and the links; drop the rest ("figure_1"...)."""
    ident = element.attrib.pop("id", None)
    if ident in used:
        element.set("id", prefix + ident)
    for name, value in list(element.attrib.items()):
        value = _REFERENCE.sub(lambda match: f"url(#{prefix}{match.group(1)})", value)
        element.set(name, f"#{prefix}{value[1:]}" if name == "href" else value)


class Curve(NamedTuple):
    """One line of the rule-quantity chart."""

    panel: str
    """The task: each task gets its own panel."""
    series: str
    """The colour: the model and how it was asked ("direct, 0-shot")."""
    style: str
    """The line style: the rule form ("NL", "FOL")."""
    points: Mapping[str, float]
    """Accuracy in [0, 1] per rule quantity that was measured."""


def quantity_figure(curves: Sequence[Curve], quantities: Sequence[str]) -> "Figure":
    """Accuracy (%) against rule quantity: one panel per task, the legend beside the panels.

    Twenty curves on one axes cannot be told apart; per task there are a few (a form each per
    answer style), and colours and line styles mean the same in every panel.
    """
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    panels = sorted({curve.panel for curve in curves})
    series = sorted({curve.series for curve in curves})
    styles = sorted({curve.style for curve in curves}, key=lambda style: (style != "NL", style))
    columns = min(len(panels), _PANEL_COLUMNS)
    rows = math.ceil(len(panels) / columns)
    figure = Figure(figsize=(2.8 * columns + 2.4, 2.3 * rows + 0.7), layout="constrained")
    grid = figure.subplots(rows, columns, sharey=True, squeeze=False)
    for axes in grid.flat[len(panels) :]:
        axes.remove()
    for axes, panel in zip(grid.flat, panels, strict=False):
        shown = [curve for curve in curves if curve.panel == panel]
        _draw_panel(axes, panel, shown, quantities, (series, styles))
    figure.supxlabel("rules given")
    figure.supylabel("accuracy (%)")
    handles = [
        *[
            Line2D([], [], color=_look(i)[0], marker=_look(i)[1], label=escape_plot_label(s))
            for i, s in enumerate(series)
        ],
        *[
            Line2D([], [], color="0.3", linestyle=_dash(i), label=escape_plot_label(s))
            for i, s in enumerate(styles)
        ],
    ]
    # "outside" makes the constrained layout keep the legend clear of every panel.
    figure.legend(handles=handles, loc="outside right upper", fontsize="small")
    return figure


def _draw_panel(
    axes: "Axes",
    panel: str,
    curves: Sequence[Curve],
    quantities: Sequence[str],
    looks: tuple[Sequence[str], Sequence[str]],
) -> None:
    """One task's curves; `looks` (every series, every style) fixes colours and dashes."""
    series, styles = looks
    positions = {q: i for i, q in enumerate(quantities)}
    for curve in curves:
        xs = [q for q in quantities if q in curve.points]
        colour, marker = _look(series.index(curve.series))
        axes.plot(
            [positions[q] for q in xs],
            [100 * curve.points[q] for q in xs],
            color=colour,
            marker=marker,
            linestyle=_dash(styles.index(curve.style)),
        )
    axes.set_title(escape_plot_label(panel), fontsize="medium")
    axes.set_xticks(range(len(quantities)), list(quantities), fontsize="small")
    axes.set_ylim(0, 100)
    axes.grid(alpha=0.3)


_PANEL_COLUMNS = 3
_MARKERS = ("o", "s", "^", "D")


def _look(series: int) -> tuple[str, str]:
    """Colour and marker of a series: ten colours, then the same colours with the next marker."""
    return f"C{series % 10}", _MARKERS[series // 10 % len(_MARKERS)]


def _dash(style: int) -> Literal["-", "--", ":", "-."]:
    """The line style of a form: solid for the first (NL), then dashed, dotted..."""
    dashes: tuple[Literal["-", "--", ":", "-."], ...] = ("-", "--", ":", "-.")
    return dashes[style % len(dashes)]


def quantity_curve(
    curves: Sequence[Curve], quantities: Sequence[str], path_stem: Path
) -> list[Path]:
    """The rule-quantity chart (`quantity_figure`) saved as PNG and SVG."""
    return save_figure(quantity_figure(curves, quantities), path_stem)


def measured_axes(
    series: Mapping[str, Mapping[str, float]], axes_names: Sequence[str]
) -> list[str]:
    """The axes, in order, that at least one series has a value for."""
    return [name for name in axes_names if any(name in values for values in series.values())]


def radar_figure(series: Mapping[str, Mapping[str, float]], axes_names: Sequence[str]) -> "Figure":
    """The capability radar: one polygon per model, values in [0, 1] on each named axis.

    Only axes some series measured are drawn; a series that lacks one of them is drawn with a
    gap there (no fill) and says so in the legend, so an unmeasured value never reads as 0.
    Some series must have measured something (`measured_axes`): there is no empty radar.
    """
    names = measured_axes(series, axes_names)
    if not names:
        raise ValueError("a radar needs at least one measured axis")
    from matplotlib.figure import Figure

    angles = [2 * math.pi * i / len(names) for i in range(len(names))]
    figure = Figure(figsize=(5, 5))
    axes = figure.add_subplot(projection="polar")
    for label, values in sorted(series.items()):
        missing = [name for name in names if name not in values]
        points = [100 * values.get(name, math.nan) for name in names]
        legend = f"{label} (not measured: {', '.join(missing)})" if missing else label
        closed_angles, closed = [*angles, angles[0]], [*points, points[0]]
        axes.plot(closed_angles, closed, marker="o", label=escape_plot_label(legend))
        if not missing:
            axes.fill(closed_angles, closed, alpha=0.1)
    axes.set_xticks(angles)
    axes.set_xticklabels(names)
    axes.set_ylim(0, 100)
    axes.legend(loc="upper right", bbox_to_anchor=(1.35, 1.1), fontsize="small")
    return figure


def radar(
    series: Mapping[str, Mapping[str, float]], axes_names: Sequence[str], path_stem: Path
) -> list[Path]:
    """The radar (`radar_figure`) saved as PNG and SVG; no paths when nothing was measured."""
    if not measured_axes(series, axes_names):
        return []
    return save_figure(radar_figure(series, axes_names), path_stem)


def loss_curve(
    points: Sequence[Sequence[float]],
    title: str,
    path_stem: Path,
    axes_labels: tuple[str, str] = ("optimizer step", "training loss (completion tokens)"),
    running_mean: int = 0,
) -> list[Path]:
    """A loss against its step from [step, loss] pairs; nothing is drawn without points.

    The axes read as training loss unless `axes_labels` says otherwise. `running_mean` > 1
    draws the points faint and the mean of the last that many over them: a noisy loss (GCG's,
    on fresh instances each step) shows its trend.
    """
    if not points:
        return []
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(6, 4))
    steps, losses = [p[0] for p in points], [p[1] for p in points]
    smooth = running_mean > 1
    axes.plot(steps, losses, marker=".", alpha=0.35 if smooth else 1.0, label="per step")
    if smooth:
        means = [
            sum(losses[max(0, i - running_mean + 1) : i + 1]) / min(i + 1, running_mean)
            for i in range(len(losses))
        ]
        axes.plot(steps, means, linewidth=2, label=f"mean of the last {running_mean}")
        axes.legend(fontsize="small")
    axes.set_xlabel(axes_labels[0])
    axes.set_ylabel(axes_labels[1])
    axes.set_title(escape_plot_label(title), fontsize="medium")
    axes.set_ylim(bottom=0)
    axes.grid(alpha=0.3)
    paths = save_figure(figure, path_stem)
    pyplot.close(figure)
    return paths
