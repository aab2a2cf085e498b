"""`rulebench report ... --html FILE`: each report command writes its page beside its usual output.

Runs are real (scripted models, a real store) and go through the real commands.
"""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from rulebench.cli.app import app
from rulebench.core.errors import ConfigError
from rulebench.engine.store.database import Store

from tests.report.html_page import Page

runner = CliRunner()
FIXTURES = Path(__file__).parents[1] / "inferential" / "tasks" / "fixtures" / "official"


def invoke(*args: str, code: int = 0) -> Result:
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, (result.output, result.exception)
    return result


def newest_run(store: str) -> str:
    with Store(store, readonly=True) as db:
        return db.list_runs(1)[0].id


def results_of(store: str, run_id: str) -> int:
    with Store(store, readonly=True) as db:
        return db.count_results(run_id)["ok"]


def scenarios_run(store: str, model: str) -> str:
    invoke("run", "scenarios", "-s", "basic", "--per-group", "1", "-m", model, "--store", store)
    return newest_run(store)


def assert_page(path: Path, title: str, items_shown: int) -> Page:
    html = path.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "<script" not in html
    page = Page(html)
    assert title in page.text
    assert len([a for a in page.tags("details") if a.get("class") == "item"]) == items_shown
    return page


def test_report_scenarios_and_judge_write_html_beside_markdown_and_json(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    sources = [scenarios_run(store, "scripted/echo"), scenarios_run(store, "scripted/fixed")]
    page, markdown = tmp_path / "pages" / "scenarios.html", tmp_path / "r" / "report.md"
    args = ["report", "scenarios", *sources, "-o", str(markdown.parent), "--store", store]
    result = invoke(*args, "--html", str(page), "--html-items", "2")
    assert f"HTML report written to {page}" in result.stderr
    assert markdown.exists() and "Paired comparison" in result.stdout
    assert_page(page, "Rule-obeying scenarios report", items_shown=4)  # 2 runs x 2 items

    judge = ["run", "judge", "--per-group", "3", "-m", "scripted/fixed", "-M", "reply=fail"]
    invoke(*judge, *[p for s in sources for p in ("--from-run", s)], "--store", store)
    judged, page = newest_run(store), tmp_path / "judge.html"
    result = invoke("report", "judge", judged, "--json", "--store", store, "--html", str(page))
    assert json.loads(result.stdout)["report"] == "judge"  # stdout stays pure JSON
    shown = assert_page(page, "Judge (error detection) report", results_of(store, judged))
    assert shown.table_with(["rule", "n", "accuracy", "precision", "recall", "F1", "unparsed"])


def test_report_inferential_html_with_json_makes_no_report_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store = str(tmp_path / "s.sqlite")
    task = ["-t", "law", "--data-root", str(FIXTURES), "-q", "golden", "-q", "few"]
    invoke("run", "inferential", *task, "-m", "scripted/fixed", "-M", "reply=Answer: none",
           "--store", store)  # fmt: skip
    run_id = newest_run(store)
    result = invoke("report", "inferential", run_id, "--json", "--store", store, "--html", "r.html")
    assert json.loads(result.stdout)["runs"][0]["id"] == run_id
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("s.sqlite")) == [
        "r.html"
    ]
    title = "Inferential rule-following report"
    page = assert_page(tmp_path / "r.html", title, items_shown=results_of(store, run_id))
    assert page.tags("svg")  # the rule-quantity chart, inline

    invoke("report", "inferential", run_id, "--store", store, "--html", "again.html")
    assert (tmp_path / "rulebench-report" / "report.md").exists()  # the usual output too
    assert (tmp_path / "again.html").exists()


def test_an_html_path_that_cannot_be_written_is_a_config_error(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    run_id = scenarios_run(store, "scripted/echo")
    (tmp_path / "file").write_text("not a folder")
    bad = tmp_path / "file" / "r.html"
    result = invoke("report", "scenarios", run_id, "--store", store, "--html", str(bad), code=1)
    # main() prints a ConfigError as one "error: ..." line (tests/cli/test_cli.py checks that).
    assert isinstance(result.exception, ConfigError)
    assert str(result.exception).startswith(f"--html {bad}: cannot write the file: ")
