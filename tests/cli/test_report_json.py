"""`rulebench report ... --json`: the tables' numbers on stdout; incomplete runs said so.

Reports once had no machine output, and a run stopped half way reported its rates as if they
stood for the whole suite. Runs are real (scripted models, a real store); the reports go
through the real commands.
"""

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from rulebench.cli.app import app
from rulebench.engine.store.database import Store

runner = CliRunner()
FIXTURES = Path(__file__).parents[1] / "inferential" / "tasks" / "fixtures" / "official"


def invoke(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def strict_json(text: str) -> Any:
    """JSON as a strict reader takes it: NaN or Infinity would be an error."""

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def newest_run(store: str) -> str:
    with Store(store, readonly=True) as db:
        return db.list_runs(1)[0].id


def scenarios_run(store: str, model: str) -> str:
    invoke("run", "scenarios", "-s", "basic", "--per-group", "1", "-m", model, "--store", store)
    return newest_run(store)


def interrupt(store: str, run_id: str) -> None:
    with Store(store) as db:
        db.finish_run(run_id, "interrupted", {})


def test_scenarios_report_json_has_the_tables_numbers(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    first, second = scenarios_run(store, "scripted/echo"), scenarios_run(store, "scripted/fixed")
    markdown = tmp_path / "r" / "report.md"
    result = invoke(
        "report", "scenarios", first, second, "--json", "-o", str(markdown.parent), "--store", store
    )
    found = strict_json(result.stdout)
    assert found["report"] == "scenarios" and markdown.exists()
    echo = found["runs"][0]
    assert (echo["id"], echo["model"], echo["status"], echo["warnings"]) == (
        first,
        "scripted/echo",
        "completed",
        [],
    )
    assert echo["protocol"] == "user, reminders, compat"
    buckets = {(b["suite"], b["bucket"]): b["rate"] for b in echo["buckets"]}
    assert buckets[("basic", "harmless")]["n"] == 9 and buckets[("basic", "helpful")]["n"] == 10
    assert 0 <= buckets[("basic", "harmless")]["low"] <= buckets[("basic", "harmless")]["value"]
    assert echo["headline"] is None  # redteam was not run: no partial headline
    assert len(echo["by_behavior"]) == 19 and echo["by_strategy"] == {}
    [comparison] = found["comparisons"]
    assert (comparison["first"], comparison["pairs"]) == ("scripted/echo", 19)


def test_an_interrupted_scenarios_run_is_flagged_at_the_top_and_on_stderr(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    run_id = scenarios_run(store, "scripted/echo")
    interrupt(store, run_id)
    result = invoke("report", "scenarios", run_id, "--store", store)
    assert f"warning: run {run_id} is interrupted, not completed" in result.stderr
    before_tables = result.stdout.split("Suites and buckets")[0]
    assert f"Warning: run {run_id} is interrupted" in before_tables
    found = strict_json(invoke("report", "scenarios", run_id, "--json", "--store", store).stdout)
    assert found["runs"][0]["status"] == "interrupted"
    assert "cover only the 19 items it finished" in found["runs"][0]["warnings"][0]


def test_judge_report_json(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    sources = [scenarios_run(store, "scripted/echo"), scenarios_run(store, "scripted/fixed")]
    args = ["run", "judge", "--per-group", "5", "-m", "scripted/fixed", "-M", "reply=fail"]
    invoke(*args, *[p for s in sources for p in ("--from-run", s)], "--store", store)
    judged = newest_run(store)
    found = strict_json(invoke("report", "judge", judged, "--json", "--store", store).stdout)
    assert found["run"]["source_runs"] == sources and found["run"]["status"] == "completed"
    with Store(store, readonly=True) as db:
        assert found["overall"]["n"] == db.count_results(judged)["ok"]
    assert found["overall"]["recall"] is None or found["overall"]["recall"]["value"] == 1.0
    assert all(set(scores) >= {"accuracy", "f1"} for scores in found["by_rule"].values())
    interrupt(store, judged)
    result = invoke("report", "judge", judged, "--store", store)
    assert f"warning: run {judged} is interrupted" in result.stderr
    assert result.stdout.index("Warning") < result.stdout.index(f"Judge run {judged}")


def test_inferential_report_json_writes_no_files_unless_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    store = str(tmp_path / "s.sqlite")
    task = ["-t", "law", "--data-root", str(FIXTURES), "-q", "golden"]
    invoke(
        "run",
        "inferential",
        *task,
        "-m",
        "scripted/fixed",
        "-M",
        "reply=Answer: none",
        "--store",
        store,
    )
    run_id = newest_run(store)
    found = strict_json(invoke("report", "inferential", run_id, "--json", "--store", store).stdout)
    assert not (tmp_path / "rulebench-report").exists()
    [run] = found["runs"]
    assert (run["id"], run["status"], found["extraction"]) == (run_id, "completed", "robust")
    [cell] = run["cells"]
    assert (cell["task"], cell["quantity"], cell["accuracy"]["value"]) == ("law", "golden", 0.0)
    assert run["overall"]["n"] == cell["accuracy"]["n"]
    interrupt(store, run_id)
    out = tmp_path / "report"
    result = invoke("report", "inferential", run_id, "-o", str(out), "--store", store)
    assert f"warning: run {run_id} is interrupted" in result.stderr
    text = (out / "report.md").read_text(encoding="utf-8")
    assert text.index("**Warning:** run") < text.index("## Accuracy by setting")
