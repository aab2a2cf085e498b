"""`rulebench runs show RUN` names the run's instruction wording, for every task that has one.

Inferential, scenarios and judge runs each record the choice in a different place of their
config; the line reads the same for all three, and tasks without the choice print none.
"""

import json
from pathlib import Path

from typer.testing import CliRunner

from rulebench.cli.app import app
from rulebench.engine.store.database import Store

from tests.inferential.upstream.clone_fixture import make_clone
from tests.scenarios.upstream_fixture import build_clone, head_commit

runner = CliRunner()
ECHO = ["-m", "scripted/echo"]


def _newest(store: Path) -> str:
    with Store(store, readonly=True) as db:
        return db.list_runs()[0].id


def _invoke(store: Path, *args: str) -> str:
    result = runner.invoke(app, [*args, "--store", str(store)])
    assert result.exit_code == 0, (result.output, result.exception)
    return _newest(store)


def _show(store: Path, run_id: str) -> tuple[list[str], str | None]:
    """The lines `runs show` prints, and the label its --json form holds."""
    shown = runner.invoke(app, ["runs", "show", run_id, "--store", str(store)])
    assert shown.exit_code == 0, shown.output
    as_json = runner.invoke(app, ["runs", "show", run_id, "--store", str(store), "--json"])
    assert as_json.exit_code == 0, as_json.output
    return shown.stdout.splitlines(), json.loads(as_json.stdout)["prompts_label"]


def test_scenarios_and_judge_runs_show_their_wording(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    clone = tmp_path / "clone"
    folder = build_clone(clone)
    upstream = ["--prompts", "upstream", "--upstream", str(folder)]
    # Echo repeats the word in most ForbiddenWord cases, not all: both kinds to judge.
    suite = ["run", "scenarios", *ECHO, "--scenario", "ForbiddenWord", "-s", "basic", "-s"]
    suite += ["redteam", "--per-group", "5"]
    ours = _invoke(store, *suite)
    theirs = _invoke(store, *suite, *upstream)
    judged = _invoke(store, "run", "judge", "--from-run", theirs, *ECHO, *upstream)
    judged_ours = _invoke(store, "run", "judge", "--from-run", ours, *ECHO)
    expected = f"prompts: upstream (clone at commit {head_commit(clone)[:8]})"
    for run_id, label in [
        (ours, "prompts: rulebench"),
        (theirs, expected),
        (judged, expected),
        (judged_ours, "prompts: rulebench"),
    ]:
        lines, from_json = _show(store, run_id)
        assert label in lines, (run_id, lines[:4])
        assert from_json == label
    for run_id, label in [(judged, expected), (judged_ours, "prompts: rulebench")]:
        report = runner.invoke(app, ["report", "judge", run_id, "--store", str(store), "--json"])
        assert report.exit_code == 0, report.output
        assert json.loads(report.stdout)["run"]["prompts"] == label
        text = runner.invoke(app, ["report", "judge", run_id, "--store", str(store)])
        assert f"{label}." in " ".join(text.stdout.split())


def test_an_inferential_run_shows_its_wording(tmp_path: Path) -> None:
    clone = make_clone(tmp_path)
    store = tmp_path / "s.sqlite"
    common = ["run", "inferential", "--task", "clutrr", "-q", "golden", "--data-root"]
    theirs = _invoke(store, *common, str(clone / "dataset"), *ECHO, "--prompts", "upstream")
    ours = _invoke(store, *common, str(clone / "dataset"), *ECHO)
    lines, from_json = _show(store, theirs)
    assert "prompts: upstream (clone at commit 1a2b3c4d)" in lines
    assert from_json == "prompts: upstream (clone at commit 1a2b3c4d)"
    assert "prompts: rulebench" in _show(store, ours)[0]


def test_a_task_without_a_wording_choice_prints_no_prompts_line(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run_id = _invoke(store, "run", "smoke", *ECHO)
    lines, from_json = _show(store, run_id)
    assert not any(line.startswith("prompts:") for line in lines)
    assert from_json is None
