"""The scenarios HTML report's charts: pass rate by scenario, rule and strategy, with intervals.

Runs are real (scripted models, a real store); each chart's SVG is parsed back and its bars are
checked against the Markdown report's own breakdown tables, which stay as they were.
"""

import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from pydantic import JsonValue

import rulebench
from rulebench.engine.store.database import Store
from rulebench.report.bar_chart import SERIES_COLOURS, Bar, draw_bars
from rulebench.report.build import html_report, scenarios_report
from rulebench.report.html import render_html
from rulebench.report.scenarios import scenarios_document
from rulebench.scenarios.scoring import CaseRecord, Rate

from tests.report.html_page import Page, markdown_table
from tests.report.test_html_report import assert_self_contained

REDTEAM: dict[str, JsonValue] = {"suites": ["basic", "redteam"], "per_group": 1}
FIGURE = re.compile(r"<figure>\s*(<svg.*?</svg>)\s*<figcaption>(.*?)</figcaption>", re.S)
CHARTS = {
    "Pass rate by scenario": "By scenario",
    "Pass rate by rule (behavior)": "By behavior",
    "Pass rate by red-team strategy": "By strategy",
}
"""Each chart's caption and the section (the Markdown table) it draws."""
# The drawing's geometry (report.bar_chart): a bar of 100% is this wide, from this x.
PLOT_X, PLOT_W = 230.0, 400.0


def charts(html: str) -> dict[str, ElementTree.Element]:
    """Each bar chart's caption and its SVG as XML."""
    return {caption: ElementTree.fromstring(svg) for svg, caption in FIGURE.findall(html)}


def rows(svg: ElementTree.Element) -> list[tuple[str, str, str, float]]:
    """A chart's bars: (label, run, the text beside the bar, the bar's width as a fraction)."""
    found = []
    for row in svg.iter("g"):
        if row.get("class") == "row":
            [value] = [t.text for t in row.iter("text") if t.get("class") == "value"]
            [rect] = row.iter("rect")
            width = float(rect.get("width", "nan")) / PLOT_W
            found.append(
                (str(row.get("data-label")), row.get("data-series", ""), str(value), width)
            )
    return found


def scenarios_page(store: Path, models: list[str]) -> tuple[str, str]:
    """The HTML and Markdown reports of one scenarios run per model, in that order."""
    ids = [rulebench.run("scenarios", m, config=REDTEAM, store=store).run.id for m in models]
    with Store(store, readonly=True) as db:
        built = scenarios_report(db, ids)
        return html_report(db, built), built.markdown


def test_a_runs_page_charts_every_breakdown_row_with_its_rate_and_interval(
    tmp_path: Path,
) -> None:
    html, markdown = scenarios_page(tmp_path / "s.sqlite", ["scripted/echo"])
    assert_self_contained(html)
    found = charts(html)
    assert list(found) == list(CHARTS)
    for caption, heading in CHARTS.items():
        table = markdown_table(markdown, heading)[1:]
        drawn = rows(found[caption])
        # One bar per scenario, behavior or strategy, in the table's order, with its text.
        assert [(label, text) for label, _, text, _ in drawn] == [(r[1], r[2]) for r in table]
        assert drawn
        for _, series, text, width in drawn:
            assert series == ""  # one run: no legend, no series
            percent = float(text.split(" ")[0])
            assert abs(width - percent / 100) < 0.002  # the bar is as long as the rate
    assert len(rows(found["Pass rate by scenario"])) > 1
    assert "<svg" not in markdown and "chart" not in markdown.lower()


def test_a_comparison_sets_both_runs_side_by_side_under_each_label(tmp_path: Path) -> None:
    html, markdown = scenarios_page(tmp_path / "s.sqlite", ["scripted/echo", "scripted/fixed"])
    assert_self_contained(html)
    found = charts(html)
    assert list(found) == list(CHARTS)
    for caption, heading in CHARTS.items():
        table = markdown_table(markdown, heading)[1:]
        svg = found[caption]
        drawn = rows(svg)
        expected = {(r[1], r[0]): r[2] for r in table}  # (label, run) -> the table's text
        assert {(label, run): text for label, run, text, _ in drawn} == expected
        assert len(drawn) == len(table)
        labels = [label for label, _, _, _ in drawn]
        for label in set(labels):  # a label's bars are next to each other, one per run
            at = [i for i, shown in enumerate(labels) if shown == label]
            assert at == list(range(at[0], at[0] + 2))
            assert [drawn[i][1] for i in at] == ["scripted/echo", "scripted/fixed"]
        legend = [t.text for t in svg.iter("text") if t.get("class") == "series"]
        assert legend == ["scripted/echo", "scripted/fixed"]
        shown_labels = [t.text for t in svg.iter("text") if t.get("class") == "label"]
        assert len(shown_labels) == len(set(labels))  # each label named once, not per run


def test_a_label_measured_by_one_run_only_gets_one_bar() -> None:
    def record(case: str, scenario: str, passed: bool) -> CaseRecord:
        return CaseRecord(case, "basic", "harmless", scenario, "b", None, 0, passed)

    first = [record("c1", "A", True), record("c2", "B", False)]
    second = [record("c1", "A", False)]
    html = render_html(scenarios_document([("m1", "user", first), ("m2", "user", second)]), [])
    drawn = rows(charts(html)["Pass rate by scenario"])
    assert [(label, run, width) for label, run, _, width in drawn] == [
        ("A", "m1", 1.0),
        ("A", "m2", 0.0),
        ("B", "m1", 0.0),
    ]


def test_hostile_labels_in_a_chart_stay_text() -> None:
    hostile = '</svg><script>alert(1)</script><img src=x onerror="y"> \x1b[2J'
    records = [
        CaseRecord(f"c{i}", "redteam", "harmless", hostile, hostile, hostile, 0, i % 2 == 0)
        for i in range(4)
    ]
    html = render_html(scenarios_document([(hostile, "user", records)]), [])
    page = Page(html)
    assert page.tags("script") == page.tags("img") == []
    assert "\x1b" not in html
    found = charts(html)
    assert len(found) == 3
    for svg in found.values():
        [(label, _, _, _)] = rows(svg)
        assert label == hostile.replace("\x1b", "\\x1b")


def test_runs_past_the_palette_reuse_its_colours_in_order() -> None:
    rate = Rate(value=0.5, low=0.2, high=0.8, n=4)
    bars = [Bar("x", rate, f"run {i}") for i in range(SERIES_COLOURS + 1)]
    svg = draw_bars(bars, "chart-x", "t")
    classes = [r.get("class") for g in svg.iter("g") if g.get("class") == "row" for r in g]
    colours = [c for c in classes if c and c.startswith("bar")]
    assert colours[0] == colours[SERIES_COLOURS] == "bar series-0"
    assert len(set(colours)) == SERIES_COLOURS
