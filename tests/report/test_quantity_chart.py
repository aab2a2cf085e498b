"""The rule-quantity chart stays readable with many curves: a panel per task, legend outside."""

from rulebench.report.plots import Curve, quantity_figure

QUANTITIES = ("none", "golden", "few", "all")


def twenty_curves() -> list[Curve]:
    """Ten tasks x NL/FOL, answered one way: the paper's Figure 4 for one model."""
    return [
        Curve(
            f"task{t:02d}",
            "direct, 0-shot",
            form,
            {q: (t + i) / 20 for i, q in enumerate(QUANTITIES)},
        )
        for t in range(10)
        for form in ("NL", "FOL")
    ]


def test_twenty_curves_get_one_panel_per_task_and_a_legend_beside_them() -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = quantity_figure(twenty_curves(), QUANTITIES)
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    panels = figure.axes
    assert [axes.get_title() for axes in panels] == [f"task{t:02d}" for t in range(10)]
    assert all(len(axes.lines) == 2 for axes in panels)
    # NL solid, FOL dashed (NL is given first), one colour for the one answer style.
    assert all([line.get_linestyle() for line in axes.lines] == ["-", "--"] for axes in panels)
    assert len({line.get_color() for axes in panels for line in axes.lines}) == 1
    [legend] = figure.legends
    assert [text.get_text() for text in legend.get_texts()] == ["direct, 0-shot", "NL", "FOL"]
    box = legend.get_window_extent(canvas.get_renderer())
    width, height = canvas.get_width_height()
    assert box.x0 >= 0 and box.x1 <= width and box.y0 >= 0 and box.y1 <= height
    for axes in panels:
        assert not box.overlaps(axes.get_window_extent()), axes.get_title()


def test_series_share_colours_across_panels_and_a_single_task_is_one_panel() -> None:
    import numpy

    curves = [
        Curve("kinship", "model-a, direct, 0-shot", "NL", {"few": 0.5, "all": 0.25}),
        Curve("kinship", "model-b, direct, 0-shot", "NL", {"few": 0.75}),
    ]
    figure = quantity_figure(curves, QUANTITIES)
    [axes] = figure.axes
    colours = [line.get_color() for line in axes.lines]
    assert len(set(colours)) == 2
    # Quantities keep their place on the x axis whatever a curve measured.
    first, second = (numpy.asarray(line.get_xdata()).tolist() for line in axes.lines[:2])
    assert first == [2, 3] and second == [2]
    assert [tick.get_text() for tick in axes.get_xticklabels()] == list(QUANTITIES)
