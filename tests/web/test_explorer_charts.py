"""A run's charts page: the scenario report's pass rates as bars, the inferential report's figures.

Charts are SVG in the page (no script, no outside request, no inline style the CSP would
block); their numbers are the report's, checked against `rulebench report`'s own tables.
"""

import re
import threading
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest
from pydantic import JsonValue

import rulebench
from rulebench.core.items import ItemResult, Outcome
from rulebench.engine.store.database import Store
from rulebench.report import plots
from rulebench.report.build import inferential_report, scenarios_report
from rulebench.web.explorer import charts as web_charts

from tests.report.html_page import Page, markdown_table
from tests.web.explorer_store import HOSTILE, explorer, synthetic_run

FIGURE = re.compile(
    r"<figure class=\"chart\">\s*<figcaption>(.*?)</figcaption>\s*(.*?)</figure>", re.S
)
REDTEAM: dict[str, JsonValue] = {"suites": ["basic", "redteam"], "per_group": 1}
KINSHIP: dict[str, JsonValue] = {"tasks": ["kinship"], "per_group": 2}


def figures(html: str) -> dict[str, ElementTree.Element | None]:
    """Each chart's caption and its SVG as XML (None where the page says it is empty)."""
    found: dict[str, ElementTree.Element | None] = {}
    for caption, body in FIGURE.findall(html):
        svg = re.search(r"<svg.*</svg>", body, re.S)
        found[caption] = ElementTree.fromstring(svg.group(0)) if svg else None
    return found


def bars(svg: ElementTree.Element) -> dict[str, str]:
    """A bar chart's rows: label -> the rate's text beside the bar."""
    rows = {}
    for row in svg.iter("g"):
        if row.get("class") == "row":
            [value] = [t.text for t in row.iter("text") if t.get("class") == "value"]
            rows[str(row.get("data-label"))] = str(value)
    return rows


def assert_csp_clean(svg: ElementTree.Element) -> None:
    """Nothing the page's policy would block or that could run or load something."""
    for element in svg.iter():
        assert element.tag not in ("style", "script", "foreignObject", "image", "a")
        assert "style" not in element.attrib
        assert not any(name.startswith("on") for name in element.attrib)
        assert element.get("href", "#").startswith("#")


def test_scenario_charts_show_the_reports_pass_rates_and_intervals(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = rulebench.run("scenarios", "scripted/echo", config=REDTEAM, store=store).run.id
    with Store(store, readonly=True) as db:
        markdown = scenarios_report(db, [run_id]).markdown
    with explorer(store) as client:
        response = client.get(f"/runs/{run_id}/charts")
        run_page = Page(client.get(f"/runs/{run_id}").text)
    assert response.status_code == 200
    charts = figures(response.text)
    headings = {
        "Pass rate by scenario": "By scenario",
        "Pass rate by rule (behavior)": "By behavior",
        "Pass rate by red-team strategy": "By strategy",
    }
    assert list(charts) == list(headings)
    for caption, heading in headings.items():
        svg = charts[caption]
        assert svg is not None
        assert_csp_clean(svg)
        expected = {row[1]: row[2] for row in markdown_table(markdown, heading)[1:]}
        assert expected
        assert bars(svg) == expected  # the report's text, interval and n, for every row
    by_scenario = charts["Pass rate by scenario"]
    assert by_scenario is not None and len(bars(by_scenario)) > 1
    assert f"/runs/{run_id}/charts" in run_page.attribute_values("href")


def test_a_run_without_strategies_says_so_instead_of_an_empty_chart(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    config: dict[str, JsonValue] = {"suites": ["basic"], "per_group": 1}
    run_id = rulebench.run("scenarios", "scripted/echo", config=config, store=store).run.id
    with explorer(store) as client:
        html = client.get(f"/runs/{run_id}/charts").text
    charts = figures(html)
    assert charts["Pass rate by red-team strategy"] is None
    assert "No case of this run has a strategy." in Page(html).text
    assert charts["Pass rate by scenario"] is not None


def hostile_case(index: int) -> ItemResult:
    """A scenario result whose scenario, behavior and strategy names are markup."""
    metadata: dict[str, JsonValue] = {
        "case_id": f"case-{index}",
        "scenario": HOSTILE,
        "behavior": f"{HOSTILE}/{index % 2}",
        "bucket": "harmless",
        "suite": "redteam",
        "category": "</svg><script>window.__pwned=4</script>",
    }
    return ItemResult(
        item_id=f"item-{index}",
        reply="r",
        outcome=Outcome(passed=index % 3 != 0),
        metadata=metadata,
    )


def test_hostile_names_in_a_chart_stay_text(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("scenarios", "scripted/x", {"task": "scenarios"})
        writer = db.writer()
        for index in range(6):
            writer.put_result(run.id, hostile_case(index))
        writer.close()
    with explorer(store) as client:
        html = client.get(f"/runs/{run.id}/charts").text
    page = Page(html)
    assert page.tags("script") == [] and page.tags("img") == []
    charts = figures(html)
    assert all(svg is not None for svg in charts.values())
    labels = {label for svg in charts.values() if svg is not None for label in bars(svg)}
    shown = HOSTILE.replace("\x1b", "\\x1b")  # a control character is shown as its escape
    assert shown in labels  # whole in the row's data-label, shown as text
    assert "</svg><script>window.__pwned=4</script>".casefold() in labels


def test_inferential_charts_are_the_reports_figures_without_inline_styles(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    config: dict[str, JsonValue] = {
        "tasks": ["kinship"],
        "per_group": 2,
        "grid": {"quantities": ["none", "golden", "all"], "forms": ["nl", "fol"]},
    }
    run_id = rulebench.run("inferential", "scripted/echo", config=config, store=store).run.id
    with Store(store, readonly=True) as db:
        document = inferential_report(db, [run_id], render=True).document
    assert document is not None
    expected = [chart.title for section in document.sections for chart in section.charts]
    assert len(expected) == 2  # the rule-quantity curves and the capability radar
    with explorer(store) as client:
        html = client.get(f"/runs/{run_id}/charts").text
        paper = client.get(f"/runs/{run_id}/charts?extract=paper")
        wrong = client.get(f"/runs/{run_id}/charts?extract=loose")
    charts = figures(html)
    assert list(charts) == expected
    for svg in charts.values():
        assert svg is not None
        assert_csp_clean(svg)
        painted = [e for e in svg.iter() if e.get("fill") or e.get("stroke")]
        assert painted  # the styles became presentation attributes, not dropped
    assert paper.status_code == 200 and "--extract paper" in " ".join(Page(paper.text).text)
    assert wrong.status_code == 422


@pytest.mark.parametrize("task", ["loadtest"])
def test_a_task_without_charts_says_so(tmp_path: Path, task: str) -> None:
    store = tmp_path / "s.sqlite"
    run_id = rulebench.run(task, "scripted/echo", config={"n": 3}, store=store).run.id
    with explorer(store) as client:
        charts = client.get(f"/runs/{run_id}/charts")
        run_page = Page(client.get(f"/runs/{run_id}").text)
    assert charts.status_code == 200
    assert "The report draws no chart for loadtest runs." in Page(charts.text).text
    assert f"/runs/{run_id}/charts" not in run_page.attribute_values("href")


def test_results_the_report_cannot_read_are_named_not_a_500(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = synthetic_run(store, 3)  # scenario-like items without a case's metadata
    with explorer(store) as client:
        response = client.get(f"/runs/{run_id}/charts")
    assert response.status_code == 200
    assert any(
        text.startswith("The report cannot chart this run: item item-000000: metadata field")
        for text in Page(response.text).text
    ), response.text


def test_chart_pages_drawn_at_once_draw_one_after_the_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """matplotlib's settings are global: two pages drawing at once must not mix them."""
    store = tmp_path / "s.sqlite"
    run_id = rulebench.run("inferential", "scripted/echo", config=KINSHIP, store=store).run.id
    drawing, most = [0], [0]
    counter = threading.Lock()
    inline_svg = plots.inline_svg

    def counted(figure: Any, name: str) -> str:
        with counter:
            drawing[0] += 1
            most[0] = max(most[0], drawing[0])
        time.sleep(0.05)  # hold the drawing long enough for the other page to arrive
        try:
            return inline_svg(figure, name)
        finally:
            with counter:
                drawing[0] -= 1

    monkeypatch.setattr(plots, "inline_svg", counted)
    start = threading.Barrier(3)
    drawn: list[int] = []

    def page() -> None:
        with Store(store, readonly=True) as db:
            start.wait()
            drawn.append(len(web_charts.inferential_charts(db, run_id, "paper")))

    workers = [threading.Thread(target=page) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(drawn) == 3 and min(drawn) > 0
    assert most[0] == 1
