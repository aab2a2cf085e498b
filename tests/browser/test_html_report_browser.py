"""The HTML report in a real Chromium: opened from disk offline, its tables, charts and items.

Runs are real (scripted models, a real store), made with `rulebench.run` (see the `browser`
fixture for why not `rulebench run`); `rulebench report ... --json --html` writes the pages.
The stdlib-parser tests (tests/report/test_html_report.py) say what the page holds; these say
what a browser makes of it: what it requests, draws, opens on a click and runs.
Set RULEBENCH_SCREENSHOTS to a folder to keep a screenshot of each report for the README.
"""

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pydantic import JsonValue
from typer.testing import CliRunner

import rulebench
from rulebench.cli.app import app
from rulebench.engine.store.database import Store
from rulebench.inferential.settings import Grid
from rulebench.inferential.task import InferentialConfig
from rulebench.report.build import html_report, scenarios_report

from tests.browser.offline_page import OfflinePage

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

# Chromium is a process of its own: `make test-fast` leaves these out with the other subprocess
# tests.
pytestmark = [pytest.mark.browser, pytest.mark.subprocess]

Opener = Callable[[Path], OfflinePage]
runner = CliRunner()
HOSTILE = (
    '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> '
    '" onmouseover="window.__pwned=3" [link](http://evil.example)'
)
# Every table as the browser lays it out: rows of cell texts, header row first.
TABLES_JS = """() => [...document.querySelectorAll("table")].map(
    (table) => [...table.rows].map((row) => [...row.cells].map((cell) => cell.innerText.trim()))
)"""
# "88.9 [56.5-98.0] (n=9)": a rate and its interval in %, one decimal, and its count if shown.
RATE = re.compile(r"(-?\d+\.\d) \[(-?\d+\.\d)-(-?\d+\.\d)\](?: \(n=(\d+)\))?")


def invoke(*args: str) -> str:
    """Runs a `rulebench report` command; its stdout."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout


def table_with(page: "Page", header: list[str]) -> list[list[str]]:
    """The rows (header first) of the one table on the page whose header is `header`."""
    tables: list[list[list[str]]] = page.evaluate(TABLES_JS)
    [found] = [table for table in tables if table and table[0] == header]
    return found


def assert_rate(cell: str, rate: dict[str, Any]) -> None:
    """The cell shows the JSON rate: value and interval to the cell's 0.1 points, and its n."""
    match = RATE.fullmatch(cell)
    assert match, cell
    shown = [float(match[1]), float(match[2]), float(match[3])]
    exact = [100 * rate["value"], 100 * rate["low"], 100 * rate["high"]]
    assert shown == pytest.approx(exact, abs=0.05 + 1e-9), cell
    assert match[4] is None or int(match[4]) == rate["n"], cell


def assert_offline_and_quiet(opened: OfflinePage) -> None:
    assert opened.requests == [], "the page asked for more than its own file"
    assert opened.problems == []
    assert opened.page.evaluate("document.scripts.length") == 0


def keep_screenshot(shown: "Page | Locator", name: str) -> None:
    """Saves a screenshot of the page's viewport or of one element for the README, if asked."""
    folder = os.environ.get("RULEBENCH_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shown.screenshot(path=Path(folder) / name)


def test_browser_shows_scenarios_buckets_mcnemar_and_opens_items_offline(
    tmp_path: Path, open_offline: Opener
) -> None:
    store, html = tmp_path / "s.sqlite", tmp_path / "scenarios.html"
    config: dict[str, JsonValue] = {"suites": ["basic"], "per_group": 1}
    run_ids = [
        rulebench.run("scenarios", model, config=config, store=store).run.id
        for model in ("scripted/echo", "scripted/fixed")
    ]
    numbers = json.loads(
        invoke(
            "report", "scenarios", *run_ids, "--json", "--store", str(store), "--html", str(html)
        )
    )
    opened = open_offline(html)
    page = opened.page
    keep_screenshot(page, "html-report-scenarios.png")

    header = ["model", "protocol", "basic harmless", "basic helpful", "headline"]
    buckets = table_with(page, header)
    assert [row[0] for row in buckets[1:]] == [run["label"] for run in numbers["runs"]]
    for row, run in zip(buckets[1:], numbers["runs"], strict=True):
        assert row[1] == run["protocol"] and len(run["buckets"]) == 2
        for bucket in run["buckets"]:
            assert_rate(row[header.index(f"{bucket['suite']} {bucket['bucket']}")], bucket["rate"])
    [comparison] = numbers["comparisons"]
    header = ["first", "second", "shared cases", "only first passed", "only second passed"]
    [_, paired] = table_with(page, [*header, "McNemar p"])
    assert paired[:5] == [comparison["first"], comparison["second"]] + [
        str(comparison[key]) for key in ("pairs", "only_first_passed", "only_second_passed")
    ]
    assert float(paired[5]) == pytest.approx(comparison["p_value"], abs=5e-5)
    assert page.get_by_role("heading", name="Paired comparison").is_visible()

    with Store(store, readonly=True) as db:
        replies = {r.item_id: r.reply for r in db.iter_results(run_ids[0])}
    run = page.locator("details.run").first
    item = run.locator("details.item").first
    reply = item.locator(".message.reply pre")
    assert not reply.is_visible()  # closed until clicked
    run.locator("> summary").click()
    item.locator("> summary").click()
    assert item.evaluate("details => details.open") and reply.is_visible()
    item_id = item.locator("> summary code").inner_text()
    assert reply.text_content() == replies[item_id] and replies[item_id]
    assert_offline_and_quiet(opened)


def test_browser_draws_the_inferential_charts_and_tables_offline(
    tmp_path: Path, open_offline: Opener
) -> None:
    store, html = tmp_path / "s.sqlite", tmp_path / "inferential.html"
    grid = Grid(quantities=("none", "golden", "few", "all"), forms=("nl", "fol"), cot=(False, True))
    config = InferentialConfig(tasks=("kinship",), per_group=4, grid=grid)
    run_id = rulebench.run("inferential", "scripted/echo", config=config, store=store).run.id
    numbers = json.loads(
        invoke(
            "report", "inferential", run_id, "--json", "--store", str(store), "--html", str(html)
        )
    )
    opened = open_offline(html)
    page = opened.page

    [run] = numbers["runs"]
    dimensions = ["Executing", "Triggering", "Formal", "Applying"]
    header = ["model", "overall", *dimensions, "Counterfactual"]
    [_, row] = table_with(page, header)
    assert row[0] == run["label"] and row[-1] == "not measured"
    assert_rate(row[1], run["overall"])
    for name in dimensions:
        assert_rate(row[header.index(name)], run["dimensions"][name])
    setting = ["model", "task", "rules", "form", "answer", "rules are", "accuracy % [95% CI]"]
    accuracy = table_with(page, setting)
    assert len(accuracy) - 1 == len(run["cells"]) == 14  # "none" has no rule, so no form
    for shown, cell in zip(accuracy[1:], run["cells"], strict=True):
        assert shown[2:4] == [cell["quantity"], cell["form"].upper()]
        assert shown[4].startswith("CoT" if cell["cot"] else "direct")
        assert_rate(shown[6], cell["accuracy"])

    charts = page.locator("figure svg")
    assert charts.count() == 2
    for chart in charts.all():
        chart.scroll_into_view_if_needed()
        box = chart.bounding_box()
        assert box and box["width"] > 100 and box["height"] > 100, box
        assert chart.is_visible() and chart.locator("path").count() > 20
    quantity = page.locator("section", has=page.get_by_role("heading", name="Rule quantity"))
    assert quantity.locator("figure svg").count() == 1
    keep_screenshot(quantity, "html-report-inferential-quantity.png")
    assert_offline_and_quiet(opened)


def test_browser_runs_nothing_from_a_hostile_reply_and_shows_it_as_text(
    tmp_path: Path, open_offline: Opener
) -> None:
    store, html = tmp_path / "s.sqlite", tmp_path / "hostile.html"
    config: dict[str, JsonValue] = {"suites": ["basic"], "per_group": 1}
    report = rulebench.run(
        "scenarios", "scripted/fixed", config=config, store=store, model_args={"reply": HOSTILE}
    )
    with Store(store, readonly=True) as db:
        page_html = html_report(db, scenarios_report(db, [report.run.id]), items_per_run=3)
    html.write_text(page_html, encoding="utf-8")
    opened = open_offline(html)
    page = opened.page

    page.locator("details.run > summary").first.click()
    replies = []
    for item in page.locator("details.item").all():
        for target in (item.locator("> summary"), item.locator(".message.reply pre")):
            target.hover()
            target.click()
        replies.append(item.locator(".message.reply pre"))
    assert len(replies) == 3
    # Inline script and handlers are also refused by the page's CSP, so the element checks
    # below are what says the escaping held.
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("script, img, iframe, object, embed").count() == 0
    # The only SVG is the report's own bar charts; none comes from a reply.
    assert page.locator("svg").count() == page.locator("svg.bars").count()
    assert page.locator(".message svg, pre svg").count() == 0
    assert page.locator("a[href^='http'], a[href^='javascript'], [href*='evil']").count() == 0
    has_handler = "[...document.querySelectorAll('*')].some((e) => e.getAttributeNames()"
    has_handler += ".some((name) => name.startsWith('on')))"
    assert page.evaluate(has_handler) is False
    for reply in replies:  # each item's reply, whole and literal, on screen
        assert reply.is_visible() and reply.text_content() == HOSTILE
    assert page.get_by_text(HOSTILE, exact=True).count() >= len(replies)
    assert_offline_and_quiet(opened)
