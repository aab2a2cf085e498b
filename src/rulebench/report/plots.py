"""Plots as PNG and SVG: the rule-quantity curve and the five-dimension radar chart."""

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


def radar(
    series: Mapping[str, Mapping[str, float]], axes_names: Sequence[str], path_stem: Path
) -> list[Path]:
    """The capability radar: one polygon per model, values in [0, 1] on each named axis."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    angles = [2 * math.pi * i / len(axes_names) for i in range(len(axes_names))]
    figure = pyplot.figure(figsize=(5, 5))
    axes = figure.add_subplot(projection="polar")
    for label, values in sorted(series.items()):
        points = [100 * values.get(name, 0.0) for name in axes_names]
        axes.plot(
            [*angles, angles[0]], [*points, points[0]], marker="o", label=escape_plot_label(label)
        )
        axes.fill([*angles, angles[0]], [*points, points[0]], alpha=0.1)
    axes.set_xticks(angles)
    axes.set_xticklabels(axes_names)
    axes.set_ylim(0, 100)
    axes.legend(loc="upper right", bbox_to_anchor=(1.35, 1.1), fontsize="small")
    paths = _save(figure, path_stem)
    pyplot.close(figure)
    return paths
