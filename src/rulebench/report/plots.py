"""Plots as PNG and SVG: the rule-quantity curve, the five-dimension radar, a loss curve."""

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from rulebench.report.untrusted import escape_plot_label


def _save(figure: object, path_stem: Path) -> list[Path]:
    paths = [path_stem.with_suffix(".png"), path_stem.with_suffix(".svg")]
    for path in paths:
        figure.savefig(path, bbox_inches="tight", dpi=150)  # type: ignore[attr-defined]
    return paths


def quantity_curve(
    curves: Mapping[str, Mapping[str, float]], quantities: Sequence[str], path_stem: Path
) -> list[Path]:
    """Accuracy (%) against rule quantity, one line per series (task, or model and task)."""
    import matplotlib

    matplotlib.use("Agg")  # no display here, ever
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(6, 4))
    for label, points in sorted(curves.items()):
        xs = [q for q in quantities if q in points]
        axes.plot(xs, [100 * points[q] for q in xs], marker="o", label=escape_plot_label(label))
    axes.set_xlabel("rules given")
    axes.set_ylabel("accuracy (%)")
    axes.set_ylim(0, 100)
    axes.legend(fontsize="small")
    axes.grid(alpha=0.3)
    paths = _save(figure, path_stem)
    pyplot.close(figure)
    return paths


def measured_axes(
    series: Mapping[str, Mapping[str, float]], axes_names: Sequence[str]
) -> list[str]:
    """The axes, in order, that at least one series has a value for."""
    return [name for name in axes_names if any(name in values for values in series.values())]


def radar(
    series: Mapping[str, Mapping[str, float]], axes_names: Sequence[str], path_stem: Path
) -> list[Path]:
    """The capability radar: one polygon per model, values in [0, 1] on each named axis.

    Only axes some series measured are drawn; a series that lacks one of them is drawn with a
    gap there (no fill) and says so in the legend, so an unmeasured value never reads as 0.
    Returns no paths (and draws nothing) when no series measured anything.
    """
    names = measured_axes(series, axes_names)
    if not names:
        return []
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    angles = [2 * math.pi * i / len(names) for i in range(len(names))]
    figure = pyplot.figure(figsize=(5, 5))
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
    paths = _save(figure, path_stem)
    pyplot.close(figure)
    return paths


def loss_curve(
    points: Sequence[Sequence[float]],
    title: str,
    path_stem: Path,
    axes_labels: tuple[str, str] = ("optimizer step", "training loss (completion tokens)"),
) -> list[Path]:
    """A loss against its step from [step, loss] pairs; nothing is drawn without points.

    The axes read as training loss unless `axes_labels` says otherwise.
    """
    if not points:
        return []
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(6, 4))
    axes.plot([p[0] for p in points], [p[1] for p in points], marker=".")
    axes.set_xlabel(axes_labels[0])
    axes.set_ylabel(axes_labels[1])
    axes.set_title(escape_plot_label(title), fontsize="medium")
    axes.set_ylim(bottom=0)
    axes.grid(alpha=0.3)
    paths = _save(figure, path_stem)
    pyplot.close(figure)
    return paths
